/**
 * Test-only: hand-written DTE XML fragments for the rules' tests. Only what the rules read; no
 * signature, TED or schema order beyond the SII's (the rules read by tag name).
 */
type Fields = Record<string, string | number | undefined>;

export const el = (name: string, content: string | number | undefined): string =>
  content === undefined ? '' : `<${name}>${content}</${name}>`;
const els = (f: Fields = {}): string =>
  Object.entries(f)
    .map(([k, v]) => el(k, v))
    .join('');

export interface DteParts {
  tipo: number;
  root?: 'Documento' | 'Liquidacion' | 'Exportaciones';
  idDoc?: Fields;
  emisor?: Fields;
  receptor?: Fields;
  /** Raw XML inside Receptor after the fields (Extranjero…). */
  receptorExtra?: string;
  transporte?: string;
  totales?: Fields;
  /** Raw XML inside Totales after the fields (ImptoReten, Comisiones). */
  totalesExtra?: string;
  otraMoneda?: Fields;
  /** Detail lines; `codes` are the line's CodImpAdic. */
  detalle?: Record<string, string | number | string[] | undefined>[];
  globales?: Fields[];
  referencias?: Fields[];
  comisiones?: Fields[];
}

export const RECEPTOR = {
  RUTRecep: '77777777-7',
  RznSocRecep: 'Cliente SpA',
  GiroRecep: 'Comercio',
  DirRecep: 'Calle 1',
  CmnaRecep: 'Santiago',
};

export function dte(p: DteParts): string {
  const root = p.root ?? ([43].includes(p.tipo) ? 'Liquidacion' : [110, 111, 112].includes(p.tipo) ? 'Exportaciones' : 'Documento');
  const idDoc = els({ TipoDTE: p.tipo, Folio: 1, FchEmis: '2026-03-02', ...p.idDoc });
  const emisor = els({ RUTEmisor: '76192083-9', RznSoc: 'SASCO SpA', GiroEmis: 'Informática', Acteco: 726000, ...p.emisor });
  const receptor = els(p.receptor ?? RECEPTOR) + (p.receptorExtra ?? '');
  const totales = els(p.totales) + (p.totalesExtra ?? '');
  const detalle = (p.detalle ?? [])
    .map(({ codes, ...f }, i) => {
      const imp = Array.isArray(codes) ? codes.map((c) => el('CodImpAdic', c)).join('') : '';
      return `<Detalle>${els({ NroLinDet: i + 1, ...(f as Fields) })}${imp}</Detalle>`;
    })
    .join('');
  const globales = (p.globales ?? []).map((g, i) => `<DscRcgGlobal>${els({ NroLinDR: i + 1, ...g })}</DscRcgGlobal>`).join('');
  const refs = (p.referencias ?? []).map((r, i) => `<Referencia>${els({ NroLinRef: i + 1, ...r })}</Referencia>`).join('');
  const com = (p.comisiones ?? []).map((c, i) => `<Comisiones>${els({ NroLinCom: i + 1, ...c })}</Comisiones>`).join('');
  return (
    `<DTE version="1.0"><${root} ID="T"><Encabezado><IdDoc>${idDoc}</IdDoc><Emisor>${emisor}</Emisor><Receptor>${receptor}</Receptor>` +
    `${p.transporte ?? ''}<Totales>${totales}</Totales>${p.otraMoneda ? `<OtraMoneda>${els(p.otraMoneda)}</OtraMoneda>` : ''}</Encabezado>` +
    `${detalle}${globales}${refs}${com}<TED version="1.0"><DD><TD>${p.tipo}</TD></DD></TED><TmstFirma>2026-03-02T09:30:00</TmstFirma></${root}></DTE>`
  );
}

/** ImptoReten entries for `totalesExtra`. */
export const impto = (...xs: [string, string | number | undefined, number][]): string =>
  xs.map(([t, tasa, monto]) => `<ImptoReten>${el('TipoImp', t)}${el('TasaImp', tasa)}${el('MontoImp', monto)}</ImptoReten>`).join('');

export const codes = (fs: { codigo: string }[]): string[] => fs.map((f) => f.codigo);
