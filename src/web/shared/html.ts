/**
 * Server-rendered HTML with escaping by default: every value interpolated into `html`…`` is
 * escaped unless it is itself the result of `html` (SafeHtml). Arrays are rendered item by item;
 * null, undefined and false render nothing. Attribute values must be quoted in the template.
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export const escapeHtml = (value: unknown): string => String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);

const render = (v: unknown): string => {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(v);
};

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Marks a constant, trusted string as HTML. Never pass user input. */
export const trusted = (s: string): SafeHtml => new SafeHtml(s);
