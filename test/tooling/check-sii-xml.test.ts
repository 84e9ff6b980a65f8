import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestKit, sampleDteInput } from '../support/dte/fixtures.ts';
import { OFFICIAL_ENVIO } from '../support/dte/sii-fixtures.ts';

/**
 * The project's own conformance checker (scripts/check-sii-xml.ts) is a judge only if it can
 * condemn: each of its checks is shown failing on a document broken in exactly that respect, and
 * passing on the same document unbroken. Run directly (not through CHECK_SII_XML), so this tests
 * our script whatever checker the rest of the suite is pointed at.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'check-sii-xml.ts');
const NODE = path.join(ROOT, 'node_modules', '.bin', 'node');
const dir = mkdtempSync(path.join(tmpdir(), 'checker-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kit = createTestKit();
const good = kit.build(sampleDteInput(33, 7)).xml;
const cafKey = path.join(dir, 'caf-key.pem');
writeFileSync(cafKey, kit.sii.publicKeyPem);

function check(bytes: Buffer, key: string | null = cafKey): { status: number | null; lines: string[]; failures: string[] } {
  const file = path.join(dir, `doc-${crypto.randomUUID()}.xml`);
  writeFileSync(file, bytes);
  const r = spawnSync(NODE, [SCRIPT, ...(key ? ['--caf-key', key] : []), file], { encoding: 'utf8' });
  const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
  return { status: r.status, lines, failures: lines.filter((l) => l.startsWith('FAIL')) };
}

const edit = (from: RegExp, to: (m: string) => string): Buffer => {
  const text = good.toString('latin1');
  expect(text).toMatch(from);
  return Buffer.from(text.replace(from, to), 'latin1');
};

/** The document with its first line (the XML declaration, outside every signature) padded to `n` characters. */
function withFirstLineOf(n: number): Buffer {
  const text = good.toString('latin1');
  const nl = text.indexOf('\n');
  return Buffer.from(text.slice(0, nl) + ' '.repeat(n - nl) + text.slice(nl), 'latin1');
}

describe('scripts/check-sii-xml.ts', () => {
  it('passes a good DTE: schema, signature, TED and CAF, one line each', () => {
    const r = check(good);
    expect(r.failures, r.lines.join('\n')).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.lines.map((l) => l.replace(/ {2,}\S.*?: /, ' ').trim())).toEqual([
      'ok valid against DTE_v10.xsd',
      'ok DTE #1 signature (standalone)',
      'ok DTE #1 TED FRMT verifies with the CAF key',
      `ok DTE #1 CAF FRMA verifies with the SII key (IDK ${kit.sii.idk})`,
    ]);
  });

  it('passes the SII official example with the SII key of its IDK (100) from the repository', () => {
    const r = check(readFileSync(OFFICIAL_ENVIO), null);
    expect(r.failures, r.lines.join('\n')).toEqual([]);
    expect(r.lines.at(-1)).toContain('CAF FRMA verifies with the SII key (IDK 100)');
  });

  it('accepts a line of 4,090 characters and fails one of 4,091', () => {
    const at = check(withFirstLineOf(4090));
    expect(at.failures, at.lines.join('\n')).toEqual([]);
    const over = check(withFirstLineOf(4091));
    expect(over.status).toBe(1);
    expect(over.failures).toHaveLength(1);
    expect(over.failures[0]).toContain('no line over 4090 characters (longest 4091)');
  });

  it('fails a schema violation', () => {
    const r = check(edit(/<TipoDTE>33<\/TipoDTE>/, () => '<TipoDTE>99</TipoDTE>'));
    expect(r.status).toBe(1);
    expect(r.failures.find((l) => l.includes('valid against DTE_v10.xsd'))).toBeDefined();
  });

  it('fails a tampered signature, and only the signature', () => {
    const r = check(edit(/<SignatureValue>(.)/, (m) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A')));
    expect(r.status).toBe(1);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]).toContain('DTE #1 signature (standalone)');
  });

  it('names each DTE whose signature fails in an envelope, and only those (xmlsec1 verifies many files per run)', () => {
    const dtes = [1, 2, 3, 4, 5].map((i) => {
      const xml = kit.build(sampleDteInput(33, 40 + i)).xml.toString('latin1');
      const broken = i === 2 || i === 4 ? xml.replace(/<SignatureValue>(.)/, (m) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A')) : xml;
      return Buffer.from(broken, 'latin1');
    });
    const r = check(kit.envelope(dtes).xml);
    expect(r.status).toBe(1);
    expect(r.failures.map((l) => /DTE #\d+ signature/.exec(l)?.[0])).toEqual(['DTE #2 signature', 'DTE #4 signature']);
    expect(r.lines.filter((l) => /^ok .*DTE #\d+ signature/.test(l))).toHaveLength(3);
  });

  it('fails a tampered TED', () => {
    const r = check(edit(/<FRMT algoritmo="SHA1withRSA">(.)/, (m) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A')));
    expect(r.status).toBe(1);
    expect(r.failures.find((l) => l.includes('TED FRMT verifies with the CAF key'))).toBeDefined();
  });

  it('fails the CAF with a key that did not sign it', () => {
    const wrong = path.join(dir, 'wrong-key.pem');
    const other = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' });
    writeFileSync(wrong, other);
    const r = check(good, wrong);
    expect(r.status).toBe(1);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]).toContain('CAF FRMA verifies with the SII key');
  });

  it('fails a file whose root is none of the six it knows, and says so', () => {
    const r = check(Buffer.from('<?xml version="1.0"?>\n<Factura/>\n', 'latin1'));
    expect(r.status).toBe(1);
    expect(r.failures[0]).toContain('root is DTE, EnvioDTE, EnvioBOLETA, LibroCompraVenta, LibroGuia or LibroBoleta');
  });
});
