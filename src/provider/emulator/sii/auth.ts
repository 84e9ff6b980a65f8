import { randomBytes, randomInt, X509Certificate } from 'node:crypto';
import { toSiiRut, verifySignedSeed } from '../../../dte/index.ts';
import type { Db } from '../../../db/types.ts';
import type { Clock } from '../../../lib/clock.ts';
import { ensureEmulatorSchema } from '../store.ts';
import { authRespuesta } from './soap.ts';
import { siiStore, type SiiTokenKind, type SiiTokenRow } from './store.ts';

/**
 * The emulated SII's authentication (docs/sources.md §1.2; manual autenticacion-automatica v1.9):
 *  - a seed is 12 digits (fig. 1.8 "000000000078"), lives two minutes ("tiene un time out de 2
 *    (dos) minutos", §2) and buys one token (ours: a used seed answers 08 "NO PUEDO ACT. SEED CON
 *    TOKEN", one of the manual's 08 texts);
 *  - the signed seed is checked as the manual lists (§2: format, seed in time, certificate,
 *    signature) with its ESTADO codes (fig. 1.7): 02 not XML, 04 no Signature, 06 no Semilla,
 *    11 no certificate, 21 KeyValue ≠ certificate, 05 bad signature, 08 unknown / timed-out /
 *    used seed, -07 a certificate without the holder's RUT (the RUT check), -3 a certificate out
 *    of its validity (ours: "Error en Autenticación");
 *  - the token is 13 characters ("XAuSbYXiNh9Ik", fig. 1.9; "13 hoy", the boleta notes) and
 *    belongs to the certificate's holder (RUT and name): uploads and queries act as that person.
 * Token lifetime: REST "válido por 1 hora y se renueva con cada uso" (the SII's boleta API notes,
 * §1.2); SOAP: the SII states none, ours is the same rule (SII_TOKEN_TTL_MS). The SOAP and REST
 * seeds and tokens are separate: one kind's token is unknown to the other's services (§1.2).
 */
export const SEED_TTL_MS = 2 * 60_000;
export const SII_TOKEN_TTL_MS = 60 * 60_000;

const TOKEN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export type TokenCheck = { ok: true; token: SiiTokenRow } | { ok: false; why: 'missing' | 'unknown' | 'expired' };

export function createSiiAuth(deps: { db: Db; clock: Clock; issued: (kind: SiiTokenKind) => void }) {
  const { db, clock } = deps;

  const newToken = () => {
    const b = randomBytes(13);
    return Array.from(b, (x) => TOKEN_CHARS[x % TOKEN_CHARS.length]).join('');
  };

  return {
    /** CrSeed.getSeed / GET boleta.electronica.semilla: the answer's XML. */
    async seed(kind: SiiTokenKind): Promise<string> {
      await ensureEmulatorSchema(db);
      const seed = String(randomInt(1, 1e12)).padStart(12, '0');
      await siiStore.insertSeed(db, seed, kind, clock.now());
      return authRespuesta([['ESTADO', '00']], [['SEMILLA', seed]]);
    },

    /** GetTokenFromSeed.getToken / POST boleta.electronica.token: the answer's XML. */
    async token(kind: SiiTokenKind, signed: string | undefined): Promise<string> {
      await ensureEmulatorSchema(db);
      const refuse = (estado: string, glosa: string) =>
        authRespuesta([
          ['ESTADO', estado],
          ['GLOSA', glosa],
        ]);
      const v = verifySignedSeed(signed ?? '');
      if (!v.ok) return refuse(v.estado, v.glosa);
      const now = clock.now();
      const outcome = await db.transaction(async (tx) => {
        const seed = await siiStore.lockSeed(tx, v.semilla.replace(/^\s+|\s+$/g, ''));
        if (!seed || seed.kind !== kind) return refuse('08', 'NO Existe SEED');
        if (seed.used_at) return refuse('08', 'NO PUEDO ACT. SEED CON TOKEN');
        if (now.getTime() - seed.issued_at.getTime() > SEED_TTL_MS) return refuse('08', 'TIME-OUT DEL SEED');
        if (!v.rutTitular) return refuse('-07', 'Error (12) parse ERROR en Validacion del RUT');
        if (now < v.notBefore || now > v.notAfter) return refuse('-3', 'Error en Autenticacion');
        await siiStore.useSeed(tx, seed.seed, now);
        const token = newToken();
        await siiStore.insertToken(tx, {
          token,
          kind,
          rut: toSiiRut(v.rutTitular),
          holder_name: holderName(v.certificateDer),
          issued_at: now,
          expires_at: new Date(now.getTime() + SII_TOKEN_TTL_MS),
        });
        return token;
      });
      if (outcome.startsWith('<?xml')) return outcome;
      deps.issued(kind);
      return authRespuesta(
        [
          ['ESTADO', '00'],
          ['GLOSA', 'Token Creado'],
        ],
        [['TOKEN', outcome]],
      );
    },

    /** A token presented with a call: known, of this kind, in time; its use renews it. */
    async check(kind: SiiTokenKind, token: string | undefined): Promise<TokenCheck> {
      if (!token) return { ok: false, why: 'missing' };
      await ensureEmulatorSchema(db);
      const row = await siiStore.getToken(db, token);
      if (!row || row.kind !== kind) return { ok: false, why: 'unknown' };
      const now = clock.now();
      if (now >= row.expires_at) return { ok: false, why: 'expired' };
      const expiresAt = new Date(now.getTime() + SII_TOKEN_TTL_MS);
      await siiStore.renewToken(db, token, expiresAt);
      return { ok: true, token: { ...row, expires_at: expiresAt } };
    },
  };
}

function holderName(der: Buffer): string {
  try {
    return /(?:^|\n)CN=([^\n]+)/.exec(new X509Certificate(der).subject)?.[1] ?? '';
  } catch {
    return '';
  }
}

export type SiiAuth = ReturnType<typeof createSiiAuth>;

/** The TOKEN of a `Cookie` header (the SII's uploads and REST calls, §1.3, §1.5). */
export function cookieToken(cookie: string | undefined): string | undefined {
  const m = /(?:^|;\s*)TOKEN=([^;]*)/.exec(cookie ?? '');
  return m?.[1]?.trim() || undefined;
}
