import type { Element } from '@xmldom/xmldom';
import { childElements, childText, firstChild, parseXml } from './c14n.ts';
import { DteEngineError } from './errors.ts';
import { NS_DSIG } from './xmldsig.ts';
import { decodeXml, detectEncoding, flattenXml } from './xml-decode.ts';

/**
 * What the printed representation shows, read back from the signed DTE: the XML is the legal
 * document, so the PDF prints what was signed (the issuer as it was then, not as the tenant is
 * now) and nothing else. Every optional element of the SII's schemas that a printed document
 * shows is read when present (codes, discounts, additional taxes, transport, exports), whether or
 * not this service writes it yet. Amounts stay the decimal text the XML carries.
 *
 * The timbre's payload is the `<TED …>…</TED>` element *as bytes*, sliced out of the stored XML:
 * the engine writes it flattened, without namespace declarations and in ISO-8859-1 (ted.ts), so
 * those bytes are exactly the ones the CAF key signed (docs/sources.md §3.3). Nothing is re-serialised.
 */
export interface PrintableLine {
  numero: number;
  codigos: { tipo: string; valor: string }[];
  nombre: string;
  descripcion: string | null;
  cantidad: string | null;
  unidad: string | null;
  precio: string | null;
  descuentoPct: string | null;
  descuentoMonto: string | null;
  recargoPct: string | null;
  recargoMonto: string | null;
  impuestoAdicional: string[];
  /** IndExe (1 exempt, 2 not billable, …); null for a taxed line. */
  indExe: number | null;
  montoItem: string;
}

export interface PrintableReferencia {
  tipoDocRef: string;
  folioRef: string | null;
  fechaRef: string | null;
  codRef: string | null;
  razonRef: string | null;
  indGlobal: boolean;
  rutOtro: string | null;
}

export interface PrintableDte {
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  fechaVencimiento: string | null;
  formaPago: number | null;
  medioPago: string | null;
  terminosPago: string | null;
  indTraslado: number | null;
  tipoDespacho: number | null;
  indServicio: number | null;
  /** Line prices include IVA (MntBruto 1). */
  montoBruto: boolean;
  /** IdDoc/IndMntNeto of a boleta: 2 = its line amounts are net of IVA (they include it otherwise). */
  indMontoNeto: number | null;
  emisor: {
    rut: string;
    razonSocial: string;
    giro: string | null;
    acteco: string[];
    telefono: string[];
    correo: string | null;
    codigoSucursal: string | null;
    sucursal: string | null;
    vendedor: string | null;
    direccion: string | null;
    comuna: string | null;
    ciudad: string | null;
  };
  receptor: {
    rut: string;
    razonSocial: string | null;
    giro: string | null;
    contacto: string | null;
    correo: string | null;
    direccion: string | null;
    comuna: string | null;
    ciudad: string | null;
    extranjero: { numeroId: string | null; nacionalidad: string | null } | null;
  };
  transporte: {
    patente: string | null;
    rutTransportista: string | null;
    rutChofer: string | null;
    nombreChofer: string | null;
    direccion: string | null;
    comuna: string | null;
    ciudad: string | null;
  } | null;
  detalle: PrintableLine[];
  descuentosGlobales: { tipo: 'D' | 'R'; glosa: string | null; unidad: string; valor: string; indExe: number | null }[];
  referencias: PrintableReferencia[];
  pagos: { fecha: string; monto: string; glosa: string | null }[];
  totales: {
    /** TpoMoneda (exports); null means Chilean pesos. */
    moneda: string | null;
    montoNeto: string | null;
    montoExento: string | null;
    tasaIva: string | null;
    iva: string | null;
    impuestos: { tipo: string; tasa: string | null; monto: string }[];
    ivaNoRetenido: string | null;
    creditoEmpresasConstructoras: string | null;
    comisiones: { neto: string | null; exento: string | null; iva: string | null } | null;
    montoTotal: string;
    montoNoFacturable: string | null;
    saldoAnterior: string | null;
    valorPagar: string | null;
  };
  otraMoneda: { moneda: string; tipoCambio: string | null; montoExento: string | null; montoTotal: string | null } | null;
  /** TmstFirma. */
  timestamp: string | null;
  /** The TED element exactly as signed and stored: the PDF417 payload. */
  tedBytes: Buffer;
}

const TED_OPEN = Buffer.from('<TED ', 'latin1');
const TED_CLOSE = Buffer.from('</TED>', 'latin1');

/**
 * The `<TED>…</TED>` bytes of a signed DTE, brought to the form the SII signs and reads: whitespace
 * between tags removed, ISO-8859-1. Ours carry the TED one element per line (xml-lines.ts), a
 * document from elsewhere may be indented (as the SII's own samples are) or UTF-8; a TED already
 * flat in ISO-8859-1 (ours before the line cut) is sliced verbatim.
 */
export function tedBytesOf(xml: Buffer): Buffer {
  const start = xml.indexOf(TED_OPEN);
  const end = start < 0 ? -1 : xml.indexOf(TED_CLOSE, start);
  if (start < 0 || end < 0) throw new DteEngineError('ted_missing', 'The document has no TED (timbre electrónico)');
  const slice = xml.subarray(start, end + TED_CLOSE.length);
  const utf8 = detectEncoding(xml) === 'utf-8';
  const text = utf8 ? slice.toString('utf8') : slice.toString('latin1');
  const flat = flattenXml(text);
  if (!utf8 && flat === text) return Buffer.from(slice);
  return Buffer.from(flat, 'latin1');
}

const text = (e: Element | undefined, ...path: string[]): string | null => {
  if (!e) return null;
  const v = childText(e, path);
  return v === undefined || v === '' ? null : v;
};
const int = (e: Element | undefined, ...path: string[]): number | null => {
  const v = text(e, ...path);
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
};
const texts = (e: Element | undefined, name: string): string[] =>
  e
    ? childElements(e, name)
        .map((c) => (c.textContent ?? '').trim())
        .filter(Boolean)
    : [];

/** Reads a signed DTE (ours or any SII-valid one) into what its printed representation shows. */
export function readPrintable(xml: Buffer): PrintableDte {
  const root = parseXml(decodeXml(xml, detectEncoding(xml))).documentElement;
  if (!root || root.localName !== 'DTE') throw new DteEngineError('not_a_dte', 'The root element is not <DTE>');
  // Documento, Liquidacion or Exportaciones: the one child with an ID that is not the signature.
  const doc = childElements(root).find((c) => c.namespaceURI !== NS_DSIG && c.hasAttribute('ID'));
  if (!doc) throw new DteEngineError('not_a_dte', 'The DTE has no Documento');
  const enc = firstChild(doc, 'Encabezado');
  const id = enc && firstChild(enc, 'IdDoc');
  const em = enc && firstChild(enc, 'Emisor');
  const re = enc && firstChild(enc, 'Receptor');
  const tr = enc && firstChild(enc, 'Transporte');
  const to = enc && firstChild(enc, 'Totales');
  const om = enc && firstChild(enc, 'OtraMoneda');
  const ext = re && firstChild(re, 'Extranjero');
  const com = to && firstChild(to, 'Comisiones');
  const tipoDte = int(id, 'TipoDTE');
  const folio = int(id, 'Folio');
  const fecha = text(id, 'FchEmis');
  const rutEmisor = text(em, 'RUTEmisor');
  if (tipoDte === null || folio === null || fecha === null || rutEmisor === null)
    throw new DteEngineError('not_a_dte', 'The DTE has no TipoDTE, Folio, FchEmis or RUTEmisor');
  return {
    tipoDte,
    folio,
    fechaEmision: fecha,
    fechaVencimiento: text(id, 'FchVenc'),
    formaPago: int(id, 'FmaPago'),
    medioPago: text(id, 'MedioPago'),
    terminosPago: text(id, 'TermPagoGlosa'),
    indTraslado: int(id, 'IndTraslado'),
    tipoDespacho: int(id, 'TipoDespacho'),
    indServicio: int(id, 'IndServicio'),
    montoBruto: text(id, 'MntBruto') === '1',
    indMontoNeto: int(id, 'IndMntNeto'),
    emisor: {
      rut: rutEmisor,
      razonSocial: text(em, 'RznSoc') ?? text(em, 'RznSocEmisor') ?? '',
      giro: text(em, 'GiroEmis') ?? text(em, 'GiroEmisor'),
      acteco: texts(em, 'Acteco'),
      telefono: texts(em, 'Telefono'),
      correo: text(em, 'CorreoEmisor'),
      codigoSucursal: text(em, 'CdgSIISucur'),
      sucursal: text(em, 'Sucursal'),
      vendedor: text(em, 'CdgVendedor'),
      direccion: text(em, 'DirOrigen'),
      comuna: text(em, 'CmnaOrigen'),
      ciudad: text(em, 'CiudadOrigen'),
    },
    receptor: {
      rut: text(re, 'RUTRecep') ?? '',
      razonSocial: text(re, 'RznSocRecep'),
      giro: text(re, 'GiroRecep'),
      contacto: text(re, 'Contacto'),
      correo: text(re, 'CorreoRecep'),
      direccion: text(re, 'DirRecep'),
      comuna: text(re, 'CmnaRecep'),
      ciudad: text(re, 'CiudadRecep'),
      extranjero: ext ? { numeroId: text(ext, 'NumId'), nacionalidad: text(ext, 'Nacionalidad') } : null,
    },
    transporte: tr
      ? {
          patente: text(tr, 'Patente'),
          rutTransportista: text(tr, 'RUTTrans'),
          rutChofer: text(tr, 'Chofer', 'RUTChofer'),
          nombreChofer: text(tr, 'Chofer', 'NombreChofer'),
          direccion: text(tr, 'DirDest'),
          comuna: text(tr, 'CmnaDest'),
          ciudad: text(tr, 'CiudadDest'),
        }
      : null,
    detalle: childElements(doc, 'Detalle').map((d, i) => ({
      numero: int(d, 'NroLinDet') ?? i + 1,
      codigos: childElements(d, 'CdgItem').map((c) => ({ tipo: text(c, 'TpoCodigo') ?? '', valor: text(c, 'VlrCodigo') ?? '' })),
      nombre: text(d, 'NmbItem') ?? '',
      descripcion: text(d, 'DscItem'),
      cantidad: text(d, 'QtyItem'),
      unidad: text(d, 'UnmdItem'),
      precio: text(d, 'PrcItem'),
      descuentoPct: text(d, 'DescuentoPct'),
      descuentoMonto: text(d, 'DescuentoMonto'),
      recargoPct: text(d, 'RecargoPct'),
      recargoMonto: text(d, 'RecargoMonto'),
      impuestoAdicional: texts(d, 'CodImpAdic'),
      indExe: int(d, 'IndExe'),
      montoItem: text(d, 'MontoItem') ?? '0',
    })),
    descuentosGlobales: childElements(doc, 'DscRcgGlobal').map((g) => ({
      tipo: text(g, 'TpoMov') === 'R' ? 'R' : 'D',
      glosa: text(g, 'GlosaDR'),
      unidad: text(g, 'TpoValor') ?? '$',
      valor: text(g, 'ValorDR') ?? '0',
      indExe: int(g, 'IndExeDR'),
    })),
    referencias: childElements(doc, 'Referencia').map((r) => ({
      tipoDocRef: text(r, 'TpoDocRef') ?? '',
      folioRef: text(r, 'FolioRef'),
      fechaRef: text(r, 'FchRef'),
      codRef: text(r, 'CodRef'),
      razonRef: text(r, 'RazonRef'),
      indGlobal: text(r, 'IndGlobal') === '1',
      rutOtro: text(r, 'RUTOtr'),
    })),
    pagos: id
      ? childElements(id, 'MntPagos').map((p) => ({
          fecha: text(p, 'FchPago') ?? '',
          monto: text(p, 'MntPago') ?? '0',
          glosa: text(p, 'GlosaPagos'),
        }))
      : [],
    totales: {
      moneda: text(to, 'TpoMoneda'),
      montoNeto: text(to, 'MntNeto'),
      montoExento: text(to, 'MntExe'),
      tasaIva: text(to, 'TasaIVA'),
      iva: text(to, 'IVA'),
      impuestos: to
        ? childElements(to, 'ImptoReten').map((x) => ({
            tipo: text(x, 'TipoImp') ?? '',
            tasa: text(x, 'TasaImp'),
            monto: text(x, 'MontoImp') ?? '0',
          }))
        : [],
      ivaNoRetenido: text(to, 'IVANoRet'),
      creditoEmpresasConstructoras: text(to, 'CredEC'),
      comisiones: com ? { neto: text(com, 'ValComNeto'), exento: text(com, 'ValComExe'), iva: text(com, 'ValComIVA') } : null,
      montoTotal: text(to, 'MntTotal') ?? '0',
      montoNoFacturable: text(to, 'MontoNF'),
      saldoAnterior: text(to, 'SaldoAnterior'),
      valorPagar: text(to, 'VlrPagar'),
    },
    otraMoneda: om
      ? {
          moneda: text(om, 'TpoMoneda') ?? '',
          tipoCambio: text(om, 'TpoCambio'),
          montoExento: text(om, 'MntExeOtrMnda'),
          montoTotal: text(om, 'MntTotOtrMnda'),
        }
      : null,
    timestamp: text(doc, 'TmstFirma'),
    tedBytes: tedBytesOf(xml),
  };
}
