import { exportFormFindings, EXPORTS } from './export-form.ts';
import { finding, type Finding } from './findings.ts';
import { text } from './xml.ts';

/** The anonymous consumer of boletas [REF §2.2, §8]. */
export const RUT_ANONYMOUS = '66666666-6';
const BOLETAS = new Set([39, 41]);
/** GiroRecep, DirRecep and CmnaRecep are "1" (always) for 33, 34, 52, 46 and 43 [SII-FORMATO §A fields 57, 60, 61]. */
const RECEPTOR_DATA_REQUIRED = new Set([33, 34, 43, 46, 52]);

/** The módulo 11 check digit [REF §8]: digits right to left × 2,3,4,5,6,7,2,…; 11 − (sum mod 11); 11 → 0, 10 → K. */
export function rutCheckDigit(body: string): string {
  let s = 0;
  let k = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    s += Number(body[i]) * k;
    k = k === 7 ? 2 : k + 1;
  }
  const r = 11 - (s % 11);
  return r === 11 ? '0' : r === 10 ? 'K' : String(r);
}

/**
 * Rejections of form (level 3) on the Encabezado, each in docs/emulator.md with its source:
 * HED-3-310 RUTRecep with a wrong check digit; HED-3-311 66666666-6 on a document that is not a
 * boleta; HED-3-312 GiroRecep, DirRecep or CmnaRecep missing where the format makes them "1";
 * HED-3-313 a guía without IndTraslado ("1" for guías, §A field 7); then the exports' own
 * (export-form.ts). The SII's numbers for these are not public: the codes are ours.
 *
 * The format says only the fields marked (*) reject when missing, and "no se rechazan documentos
 * por errores de contenido" (§2.2); these are not amounts but the data the format makes
 * mandatory always ("1"), and the service refuses them before spending a folio
 * (`docs/decisions.md` §11). We reject them so the emulator never accepts what the
 * service promises not to send.
 */
export function formFindings(dte: string, tipoDte: number): Finding[] {
  const out: Finding[] = [];
  const receptor = text(dte, 'Receptor') ?? '';
  const rut = text(receptor, 'RUTRecep');
  const m = rut ? /^(\d+)-([\dK])$/.exec(rut) : null;
  if (m && rutCheckDigit(m[1]!) !== m[2]) out.push(finding('HED-3-310', `RUTRecep ${rut}, dígito verificador ${rutCheckDigit(m[1]!)}`));
  if (rut === RUT_ANONYMOUS && !BOLETAS.has(tipoDte)) out.push(finding('HED-3-311', `RUTRecep ${rut} en documento tipo ${tipoDte}`));
  if (RECEPTOR_DATA_REQUIRED.has(tipoDte)) {
    const missing = ['GiroRecep', 'DirRecep', 'CmnaRecep'].filter((f) => !text(receptor, f));
    if (missing.length > 0) out.push(finding('HED-3-312', `falta ${missing.join(', ')}`));
  }
  if (tipoDte === 52 && !text(text(dte, 'IdDoc') ?? '', 'IndTraslado')) out.push(finding('HED-3-313'));
  if (EXPORTS.has(tipoDte)) out.push(...exportFormFindings(dte, tipoDte));
  return out;
}
