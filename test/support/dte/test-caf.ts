import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { issueCaf } from '../../../src/dte/caf.ts';
import type { Caf } from '../../../src/dte/caf.ts';
import type { SiiKeys } from '../../../src/dte/types.ts';

/**
 * Test-only: a stand-in SII that signs CAFs (IDK 666 by convention: never a real SII key), and
 * CAFs issued by it. `siiKeys` plugs into verifyCaf/verifyEnvelope; `publicKeyPem` is what
 * `check-sii-xml --caf-key` takes.
 */
export interface TestSii {
  idk: number;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicKeyPem: string;
  siiKeys: SiiKeys;
}

export function createTestSii(idk = 666): TestSii {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: 65537 });
  return {
    idk,
    privateKey,
    publicKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    siiKeys: { [String(idk)]: publicKey },
  };
}

export interface TestCafOptions {
  sii: TestSii;
  rutEmisor?: string;
  razonSocial?: string;
  tipoDte?: number;
  desde?: number;
  hasta?: number;
  fechaAutorizacion?: string;
}

export function createTestCaf(opts: TestCafOptions): { xml: Buffer; caf: Caf } {
  return issueCaf({
    rutEmisor: opts.rutEmisor ?? '76192083-9',
    razonSocial: opts.razonSocial ?? 'SASCO SpA',
    tipoDte: opts.tipoDte ?? 33,
    desde: opts.desde ?? 1,
    hasta: opts.hasta ?? 1000,
    fechaAutorizacion: opts.fechaAutorizacion ?? '2026-01-05',
    idk: opts.sii.idk,
    siiPrivateKey: opts.sii.privateKey,
  });
}
