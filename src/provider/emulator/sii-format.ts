import { siiTimestamp } from '../../dte/index.ts';

/**
 * How SimpleAPI and the SII write times, files and XML answers, as recorded [C: the provider's
 * Postman collection, protocol.ts]. Times are Chile's local wall clock (the recorded `fecha`
 * "2023-04-12T17:14:35" was answered at 21:14:35 GMT), never with an offset.
 */

/** `YYYY-MM-DDTHH:mm:ss`, Chile [C "Enviar al SII": `fecha`; "Consultar Estado Envio": `fechaAtencion`]. */
export const chileTimestamp = (at: Date): string => siiTimestamp(at);

/** `YYYY-MM-DD HH:mm:ss` [C RECEPCIONDTE TIMESTAMP, boleta `fecha_recepcion`]. */
export const chileSpaced = (at: Date): string => chileTimestamp(at).replace('T', ' ');

/** `dd/MM/yyyy HH:mm:ss` [C "Consulta Exitosa Boleta": `fechaRecepcion`]. */
export function chileSlashed(at: Date): string {
  const t = chileTimestamp(at);
  return `${t.slice(8, 10)}/${t.slice(5, 7)}/${t.slice(0, 4)} ${t.slice(11)}`;
}

/** `dd-mm-yyyy` and `hh:mm` [C "Folios / Anulacion": "con fecha 01-09-2022 01:48", "Fecha Anulación 31-08-2022"]. */
export function chileDashed(at: Date): { fecha: string; hora: string } {
  const t = chileTimestamp(at);
  return { fecha: `${t.slice(8, 10)}-${t.slice(5, 7)}-${t.slice(0, 4)}`, hora: t.slice(11, 16) };
}

/** .NET's `default(DateTime)`, answered when the SII gave no attention time [C "Consultar Estado DTE"]. */
export const DOTNET_MIN_DATE = '0001-01-01T00:00:00';

/**
 * .NET ticks (100 ns since 0001-01-01) of the Chilean wall clock: the recorded file names
 * `archivo_envio_638169164741485820.xml` decode to 2023-04-12 17:14:34.148, the answer's local
 * `fecha` 17:14:35 [C "Enviar EnvioDTE"].
 */
export function dotnetTicks(at: Date): string {
  const t = chileTimestamp(at);
  const wall = Date.UTC(+t.slice(0, 4), +t.slice(5, 7) - 1, +t.slice(8, 10), +t.slice(11, 13), +t.slice(14, 16), +t.slice(17, 19));
  const ms = BigInt(wall + at.getUTCMilliseconds()) + 62_135_596_800_000n;
  return (ms * 10_000n + BigInt(Math.floor(Math.random() * 10_000))).toString();
}

/**
 * An instant as .NET's round-trip format ("o"): seven fractional digits and Z [C, recorded
 * `X-Rate-Limit-Reset: 2025-06-06T14:03:10.2970391Z`].
 */
export const dotnetRoundTrip = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$10000Z');

/** `NUM_ATENCION` [C "Consulta Exitosa": "65284   ( 2023/04/13 09:06:45)"]. */
export function numAtencion(n: number, at: Date): string {
  const t = chileTimestamp(at);
  return `${n}   ( ${t.slice(0, 10).replace(/-/g, '/')} ${t.slice(11)})`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The SII's `SII:RESPUESTA`, as SimpleAPI passes it on in `responseXml`: UTF-8 declaration, CRLF,
 * four spaces per level, RESP_BODY before RESP_HDR, one RESP_BODY whose groups repeat per type
 * [C "Consulta Exitosa", "Usuario sin permiso en empresa", "DTE no recibido"; REF §9.4].
 * A field given as null is written empty (`<NUM_ATENCION/>` [C "Consultar Estado DTE"]).
 */
export function siiRespuesta(hdr: [string, string | number | null][], body: [string, number][][] = []): string {
  const line = (depth: number, name: string, v: string | number | null) =>
    `${'    '.repeat(depth)}${v === null || v === '' ? `<${name}/>` : `<${name}>${esc(String(v))}</${name}>`}\r\n`;
  let out = '<?xml version="1.0" encoding="UTF-8"?>\r\n<SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema">\r\n';
  if (body.length > 0) {
    out += '    <SII:RESP_BODY>\r\n';
    for (const group of body) for (const [k, v] of group) out += line(2, k, v);
    out += '    </SII:RESP_BODY>\r\n';
  }
  out += '    <SII:RESP_HDR>\r\n';
  for (const [k, v] of hdr) out += line(2, k, v);
  return `${out}    </SII:RESP_HDR>\r\n</SII:RESPUESTA>\r\n`;
}

/**
 * The SII's DTEUpload answer as SimpleAPI relays it [C "Enviar EnvioDTE"]: one space of indent,
 * the blank lines as recorded, TRACKID zero-padded to 10 digits. A refusal carries STATUS and
 * DETAIL/ERROR and no TRACKID [REF §9.3]; its layout is ours.
 */
export function recepcionDte(r: {
  rutSender: string;
  rutCompany: string;
  file: string;
  timestamp: string;
  status: string;
  trackId?: number;
  error?: string;
}): string {
  const head =
    '<?xml version="1.0"?>\n<RECEPCIONDTE>\n' +
    ` <RUTSENDER>${esc(r.rutSender)}</RUTSENDER>\n <RUTCOMPANY>${esc(r.rutCompany)}</RUTCOMPANY>\n` +
    ` <FILE>${esc(r.file)}</FILE>\n <TIMESTAMP>${r.timestamp}</TIMESTAMP>\n <STATUS>${r.status}</STATUS>\n`;
  const detail = ` <DETAIL>\n  <ERROR>${esc(r.error ?? '')}</ERROR>\n </DETAIL>\n`;
  const track = (id: number) => `\n\n <TRACKID>${String(id).padStart(10, '0')}</TRACKID>\n\n</RECEPCIONDTE>`;
  // A duplicate (STATUS 99) names the earlier track id and says why (the SII face; layout ours).
  if (r.trackId !== undefined && r.error !== undefined) return `${head}${detail}${track(r.trackId).slice(1)}`;
  if (r.trackId !== undefined) return `${head}${track(r.trackId)}`;
  return `${head}${detail}</RECEPCIONDTE>`;
}

/**
 * The SII boleta server's reception JSON, which SimpleAPI returns as text in `responseXml`, in the
 * recorded layout (a newline after each member, no indent) [C "Enviar EnvioBoleta"].
 */
export function boletaReception(r: { rutEmisor: string; rutEnvia: string; trackId: number; fechaRecepcion: string; file: string }): string {
  const s = (v: string) => JSON.stringify(v);
  return (
    `{\n"rut_emisor": ${s(r.rutEmisor)},\n"rut_envia": ${s(r.rutEnvia)},\n"trackid": ${r.trackId},\n` +
    `"fecha_recepcion": ${s(r.fechaRecepcion)},\n"estado": "REC",\n"file": ${s(r.file)}\n}`
  );
}

/**
 * The SII's SOAP answer to ingresarAceptacionReclamoDoc, as SimpleAPI relays it in `response`
 * [C "Aceptar - Rechazar en SII", both recordings]: UTF-8 declaration, one line, `ns2` namespace.
 */
export function registroSoap(codResp: number, descResp: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
    '<ns2:ingresarAceptacionReclamoDocResponse xmlns:ns2="http://ws.registroreclamodte.diii.sdi.sii.cl"><return>' +
    `<codResp>${codResp}</codResp><descResp>${esc(descResp)}</descResp>` +
    '</return></ns2:ingresarAceptacionReclamoDocResponse></soap:Body></soap:Envelope>'
  );
}
