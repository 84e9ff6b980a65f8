/**
 * Reading the SII's CAF portal pages (cvc_cgi, docs/sources.md §1.6): classic CGI HTML, ISO-8859-1,
 * upper-case tags and attributes, values quoted or not and with spaces around `=` (ruraldte
 * `engine/sii-folios.test.ts` records `value = "4"` and `value=1`). Pure functions: the adapter
 * (caf-forms.ts) and its tests use them; nothing here does I/O.
 */

export interface HtmlForm {
  /** The form's `action` as written ('' when it has none). */
  action: string;
  /** What a browser would post: inputs (submit buttons included), and each select's chosen option. */
  fields: Record<string, string>;
  /** Each select's option values, by select name. */
  options: Record<string, string[]>;
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  aacute: 'á',
  eacute: 'é',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
  Aacute: 'Á',
  Eacute: 'É',
  Iacute: 'Í',
  Oacute: 'Ó',
  Uacute: 'Ú',
  ntilde: 'ñ',
  Ntilde: 'Ñ',
  uuml: 'ü',
  deg: '°',
  ordm: 'º',
};

/** HTML entities decoded (the named ones Spanish pages use, and numeric ones). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (all, e: string) => {
    if (e.startsWith('#')) {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : all;
    }
    return NAMED[e] ?? all;
  });
}

/** An attribute of a tag: quoted with either quote, or bare; spaces around `=` allowed. */
function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>"']+))`, 'i').exec(tag);
  if (!m) return undefined;
  return decodeEntities(m[1] ?? m[2] ?? m[3] ?? '');
}

const hasFlag = (tag: string, flag: string) => new RegExp(`\\s${flag}(?:\\s|>|=|/)`, 'i').test(tag);

/**
 * The first form of a page (or, with `action`, the first whose action ends with it). Inputs of
 * type button and reset are not data; checkboxes and radios count only when checked. A select
 * posts its `selected` option, else its first.
 */
export function parseForm(html: string, action?: string): HtmlForm | undefined {
  for (const m of html.matchAll(/<form\b[^>]*>([\s\S]*?)(?:<\/form\s*>|$)/gi)) {
    const open = /^<form\b[^>]*>/i.exec(m[0])![0];
    const act = attr(open, 'action') ?? '';
    if (action !== undefined && !act.split('?')[0]!.endsWith(action)) continue;
    return { action: act, ...formFields(m[1] ?? '') };
  }
  return undefined;
}

function formFields(inner: string): Omit<HtmlForm, 'action'> {
  const fields: Record<string, string> = {};
  const options: Record<string, string[]> = {};
  for (const [tag] of inner.matchAll(/<input\b[^>]*>/gi)) {
    const name = attr(tag, 'name');
    const type = (attr(tag, 'type') ?? 'text').toLowerCase();
    if (!name || type === 'button' || type === 'reset' || type === 'image') continue;
    if ((type === 'checkbox' || type === 'radio') && !hasFlag(tag, 'checked')) continue;
    fields[name] = attr(tag, 'value') ?? (type === 'checkbox' ? 'on' : '');
  }
  for (const m of inner.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select\s*>/gi)) {
    const name = attr(m[1]!, 'name');
    if (!name) continue;
    const opts = [...m[2]!.matchAll(/<option\b[^>]*>/gi)].map(([o]) => ({ value: attr(o, 'value'), selected: hasFlag(o, 'selected') }));
    const values = opts.flatMap((o) => (o.value !== undefined ? [o.value] : []));
    options[name] = values;
    fields[name] = opts.find((o) => o.selected && o.value !== undefined)?.value ?? values[0] ?? '';
  }
  return { fields, options };
}

/**
 * The SII's error page of the folio portal: "No ha sido posible completar su solicitud…" with a
 * code such as LIBRUD-OFSF-DTE-3-1-02 (ruraldte, recorded page); other refusals carry a code
 * like ST-SEG-DTE-21-2. Undefined when the page is not an error page.
 */
export function parseErrorPage(html: string): { code: string | null; text: string } | undefined {
  const text = decodeEntities(html.replace(/<script[\s\S]*?<\/script>/gi, '').replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  const code = /\b([A-Z]{2,}(?:-[A-Z]{2,})+-[\d]+(?:-[\d]+)*)\b/.exec(text)?.[1] ?? null;
  if (!/No ha sido posible completar/i.test(text) && !(code && /\b(?:ST|LIBRUD)-/.test(code))) return undefined;
  return { code, text: text.length > 300 ? `${text.slice(0, 300)}…` : text };
}

/** The CAF in an answer: `<AUTORIZACION>…</AUTORIZACION>` holding a type and a range, or undefined. */
export function extractCaf(body: string): string | undefined {
  const m = /<AUTORIZACION\b[\s\S]*?<\/AUTORIZACION>/.exec(body);
  if (!m || !/<TD>\s*\d+\s*<\/TD>/.test(m[0]) || !/<D>\s*\d+\s*<\/D>/.test(m[0])) return undefined;
  return m[0];
}

/** One granted range as the history lists it (of_consulta2_folio). */
export interface GrantedRange {
  /** The grant's date, YYYY-MM-DD (the page writes DD-MM-YYYY). */
  fecha: string;
  cantidad: number;
  desde: number;
  hasta: number;
  /** Who asked for it. */
  mandatario: string;
}

/**
 * A page of the history of granted ranges of one type (of_consulta2_folio): rows of date
 * (DD-MM-YYYY), quantity, first folio, last folio and who asked (ruraldte's reading of the live
 * page). `enabled` false: the company may not stamp this type ("no tiene habilitado").
 */
export function parseHistory(html: string): { enabled: boolean; ranges: GrantedRange[] } {
  const text = html.replace(/<script[\s\S]*?<\/script>/gi, '');
  const enabled = !/no\s+tiene\s+habilitado/i.test(decodeEntities(text));
  const ranges: GrantedRange[] = [];
  for (const [row] of text.matchAll(/<tr\b[\s\S]*?<\/tr\s*>/gi)) {
    const cells = [...row.matchAll(/<td\b[^>]*>([\s\S]*?)<\/td\s*>/gi)].map((c) =>
      decodeEntities(c[1]!.replace(/<[^>]+>/g, ''))
        .replace(/\s+/g, ' ')
        .trim(),
    );
    if (cells.length < 5) continue;
    const d = /^(\d{2})-(\d{2})-(\d{4})$/.exec(cells[0]!);
    if (!d) continue; // headers and titles
    const num = (s: string) => (/\d/.test(s) ? Number(s.replace(/\D/g, '')) : NaN);
    const desde = num(cells[2]!);
    const hasta = num(cells[3]!);
    if (!Number.isSafeInteger(desde) || !Number.isSafeInteger(hasta) || desde < 1 || hasta < desde) continue;
    const cantidad = num(cells[1]!);
    ranges.push({
      fecha: `${d[3]}-${d[2]}-${d[1]}`,
      cantidad: Number.isSafeInteger(cantidad) ? cantidad : hasta - desde + 1,
      desde,
      hasta,
      mandatario: cells[4]!,
    });
  }
  return { enabled, ranges };
}
