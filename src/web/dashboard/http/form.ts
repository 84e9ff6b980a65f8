import { errors, isAppError, type AppError } from '../../../errors.ts';

/**
 * Reading HTML form fields (application/x-www-form-urlencoded). Every field arrives as text, or
 * as a list when repeated; these helpers turn them into the types the services take, with a
 * length bound on every string and a 400 naming the field otherwise. The rules themselves (RUT
 * check digit, URL policy, …) stay in the services.
 */
export type FormBody = Record<string, string | string[] | undefined>;

export const asForm = (body: unknown): FormBody => (body && typeof body === 'object' && !Array.isArray(body) ? (body as FormBody) : {});

export function text(body: FormBody, name: string, max: number): string {
  const raw = body[name];
  const v = Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? '');
  if (v.length > max)
    throw errors.invalid('invalid_field', `${name} must have at most ${max} characters.`, {
      param: name,
      details: { rule: 'too_long', max },
    });
  return v;
}

/** A field that must not be blank: its trimmed text. */
export function required(body: FormBody, name: string, max: number): string {
  const v = text(body, name, max).trim();
  if (!v) throw errors.invalid('invalid_field', `${name} is required.`, { param: name, details: { rule: 'required' } });
  return v;
}

export const optionalText = (body: FormBody, name: string, max: number): string | undefined => {
  const v = text(body, name, max).trim();
  return v === '' ? undefined : v;
};

export function list(body: FormBody, name: string, maxItems: number, maxLength: number): string[] {
  const raw = body[name];
  const v = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (v.length > maxItems)
    throw errors.invalid('invalid_field', `${name} has too many values.`, { param: name, details: { rule: 'too_many', max: maxItems } });
  for (const s of v)
    if (s.length > maxLength)
      throw errors.invalid('invalid_field', `${name} has a value that is too long.`, {
        param: name,
        details: { rule: 'too_long', max: maxLength },
      });
  return v;
}

export function integer(body: FormBody, name: string, min: number, max: number): number {
  const v = text(body, name, 12).trim();
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw errors.invalid('invalid_field', `${name} must be a whole number between ${min} and ${max}.`, {
      param: name,
      details: { rule: 'whole_number', min, max },
    });
  return Number(v);
}

/** Comma- or space-separated activity codes: "620200, 631100". */
export function integerList(body: FormBody, name: string, maxItems: number): number[] | undefined {
  const v = text(body, name, 100).trim();
  if (!v) return undefined;
  const parts = v.split(/[\s,;]+/).filter(Boolean);
  if (parts.length > maxItems || parts.some((p) => !/^\d{6}$/.test(p)))
    throw errors.invalid('invalid_field', `${name} must be up to ${maxItems} six-digit codes separated by commas.`, {
      param: name,
      details: { rule: 'activity_codes', max: maxItems },
    });
  return parts.map(Number);
}

/** One query-string value (the first, when repeated), bounded; undefined when absent or empty. */
export function queryValue(query: unknown, name: string, max = 512): string | undefined {
  const raw = query && typeof query === 'object' ? (query as Record<string, unknown>)[name] : undefined;
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (typeof v !== 'string' || v === '' || v.length > max) return undefined;
  return v;
}

/** One of a fixed set of values (a select, a radio group). */
export function oneOf<T extends string>(body: FormBody, name: string, allowed: readonly T[], fallback?: T): T {
  const v = text(body, name, 64) || fallback || '';
  if (!allowed.includes(v as T))
    throw errors.invalid('invalid_field', `${name} must be one of: ${allowed.join(', ')}.`, { param: name, details: { rule: 'one_of' } });
  return v as T;
}

/**
 * Checks every field of a form and keeps every failure, so the page can show all of them at once
 * beside their fields instead of the first only. `check` runs one field's rule and returns its
 * value, or undefined after recording the 4xx it threw (anything else is re-thrown).
 */
export function fieldChecks() {
  const problems: AppError[] = [];
  const check = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (e) {
      if (!isAppError(e) || e.kind !== 'invalid_request') throw e;
      problems.push(e);
      return undefined;
    }
  };
  return { check, problems };
}
