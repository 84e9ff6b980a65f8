/**
 * How the SII face's routes of this branch (boleta REST, WsRegistroReclamoDte) learn whose token a
 * call carries. The emulator's seeds and tokens (issued by CrSeed/GetTokenFromSeed and the REST
 * semilla/token) are kept elsewhere; the routes take a function that answers for a token of one
 * kind: the holder's RUT while it is valid, undefined when unknown or expired.
 */
export type SiiTokenKind = 'soap' | 'rest';

export type SiiTokenCheck = (kind: SiiTokenKind, token: string) => Promise<{ rut: string } | undefined>;

/** `Cookie: TOKEN=…` (SII-SERVICES.md §1.5, §1.7: the token travels as a cookie named TOKEN). */
export function tokenFromCookie(header: string | string[] | undefined): string | undefined {
  const all = Array.isArray(header) ? header.join('; ') : (header ?? '');
  for (const part of all.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === 'TOKEN') {
      const v = part.slice(eq + 1).trim();
      return v || undefined;
    }
  }
  return undefined;
}
