/**
 * The project's conformance checker: judges documents the way the SII does, with tools the project
 * did not write (xmllint, xmlsec1, openssl), against the schemas and keys kept in this repository.
 *
 *   node scripts/check-sii-xml.ts [--caf-key PEM] FILE...
 *
 * FILE is a DTE, an EnvioDTE, an EnvioBOLETA or a book (LibroCompraVenta, LibroGuia, LibroBoleta),
 * ISO-8859-1 as produced. For each one, in order:
 *  1. no line longer than 4,090 characters: the SII's parser refuses the whole file otherwise
 *     ("CHR-00002: Line too long (4090)", docs/dte.md "Line length"); reported only when it fails;
 *  2. valid against the SII's XSD of its root (src/dte/schemas);
 *  3. signatures: a book's or an envelope's own, in place; each DTE's on the DTE cut out of the file
 *     byte for byte and made a document of its own with the ISO-8859-1 declaration, as the SII
 *     verifies a DTE apart from its envelope (docs/decisions.md "Signatures");
 *  4. each TED: FRMT over the flattened DD (whitespace between tags removed, ISO-8859-1 bytes),
 *     with the CAF's public key that the DD carries (RSAPK: modulus and exponent);
 *  5. the CAF's FRMA over its flattened DA, with the SII's key of its IDK (100 and 300 are in
 *     src/provider/sii-certs) or the PEM given with --caf-key; a line "skip" when neither applies.
 * Prints one line per check ("ok    …", "FAIL  …  -- reason", "skip  …") and exits 1 when any check
 * failed, 2 on a usage error. Needs xmllint (libxml2-utils), xmlsec1 and openssl on the PATH.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SCHEMAS = path.join(ROOT, 'src', 'dte', 'schemas');
const SII_CERTS = path.join(ROOT, 'src', 'provider', 'sii-certs');
const MAX_LINE = 4090;
const DECLARATION = '<?xml version="1.0" encoding="ISO-8859-1"?>\n';

const SCHEMA_OF: Record<string, string> = {
  DTE: 'DTE_v10.xsd',
  EnvioDTE: 'EnvioDTE_v10.xsd',
  EnvioBOLETA: 'EnvioBOLETA_v11.xsd',
  LibroCompraVenta: 'LibroCV_v10.xsd',
  LibroGuia: 'LibroGuia_v10.xsd',
  LibroBoleta: 'LibroBOLETA_v10.xsd',
};
const BOOKS = new Set(['LibroCompraVenta', 'LibroGuia', 'LibroBoleta']);

let failed = 0;
const cafVerdicts = new Map<string, { ok: boolean; out: string }>();
const siiKeys = new Map<string, string | null>();

function report(ok: boolean, what: string, detail = ''): void {
  if (!ok) failed++;
  const reason = ok ? '' : detail.trim().split('\n').filter(Boolean).at(-1);
  console.log(`${ok ? 'ok    ' : 'FAIL  '}${what}${reason ? `  -- ${reason}` : ''}`);
}

function tool(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) return { ok: false, out: `${cmd} could not run: ${r.error.message}` };
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

/** Text of the first element `name` (bytes as latin1 text), or null. */
const inner = (text: string, name: string): string | null =>
  new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(text)?.[1]?.trim() ?? null;

/** The SII signs the DD and the DA with the whitespace between their tags removed. */
const flatten = (xml: string): Buffer => Buffer.from(xml.trim().replace(/>\s+</g, '><'), 'latin1');

const b64url = (b64: string): string => Buffer.from(b64.replace(/\s/g, ''), 'base64').toString('base64url');

/** RSA-SHA1 verification by openssl, the key as PEM (SubjectPublicKeyInfo). */
function opensslVerify(keyPem: string, data: Buffer, signatureB64: string, dir: string): { ok: boolean; out: string } {
  const [key, body, sig] = ['key.pem', 'data.bin', 'sig.bin'].map((n) => path.join(dir, n)) as [string, string, string];
  fs.writeFileSync(key, keyPem);
  fs.writeFileSync(body, data);
  fs.writeFileSync(sig, Buffer.from(signatureB64.replace(/\s/g, ''), 'base64'));
  return tool('openssl', ['dgst', '-sha1', '-verify', key, '-signature', sig, body]);
}

function siiKeyPem(idk: string): string | null {
  if (siiKeys.has(idk)) return siiKeys.get(idk)!;
  const cert = path.join(SII_CERTS, `${idk}.cer`);
  let pem: string | null = null;
  if (/^\d+$/.test(idk) && fs.existsSync(cert)) {
    const form = fs.readFileSync(cert).subarray(0, 10).toString('latin1').startsWith('-----') ? 'PEM' : 'DER';
    const r = tool('openssl', ['x509', '-inform', form, '-in', cert, '-pubkey', '-noout']);
    pem = r.ok ? r.out : null;
  }
  siiKeys.set(idk, pem);
  return pem;
}

function checkTed(label: string, dte: string, dir: string, cafKey: string | null): void {
  const dd = /<DD>[\s\S]*?<\/DD>/.exec(dte)?.[0];
  const frmt = inner(dte, 'FRMT');
  if (!dd || frmt === null) return report(false, `${label} TED present`, 'no <DD> or <FRMT>');
  const modulus = inner(dd, 'M');
  const exponent = inner(dd, 'E');
  let cafPem: string;
  try {
    cafPem = crypto
      .createPublicKey({ key: { kty: 'RSA', n: b64url(modulus ?? ''), e: b64url(exponent ?? '') }, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
  } catch (e) {
    return report(false, `${label} TED FRMT verifies with the CAF key`, `the CAF's RSAPK is not a key: ${(e as Error).message}`);
  }
  const ted = opensslVerify(cafPem, flatten(dd), frmt, dir);
  report(ted.ok, `${label} TED FRMT verifies with the CAF key`, ted.out);
  const da = /<DA>[\s\S]*?<\/DA>/.exec(dd)?.[0];
  const frma = inner(dd, 'FRMA');
  const idk = inner(dd, 'IDK') ?? '';
  const key = cafKey ?? siiKeyPem(idk);
  if (!key) return void console.log(`skip  ${label} CAF FRMA (no SII key for IDK ${idk}; pass --caf-key)`);
  if (!da || frma === null) return report(false, `${label} CAF FRMA verifies with the SII key (IDK ${idk})`, 'no <DA> or <FRMA>');
  // Every document stamped from one CAF carries the same DA and FRMA: one openssl run per CAF.
  const id = `${key}\n${da}\n${frma}`;
  let caf = cafVerdicts.get(id);
  if (!caf) cafVerdicts.set(id, (caf = opensslVerify(key, flatten(da), frma, dir)));
  report(caf.ok, `${label} CAF FRMA verifies with the SII key (IDK ${idk})`, caf.out);
}

/**
 * Each DTE's own signature, verified by xmlsec1 as if one run per file, in fewer runs: xmlsec1
 * verifies the files it is given in order, prints OK for each, and stops at the first that fails.
 * A run over the files still to check vouches for those it printed OK for; the one it stopped at
 * is run alone for its verdict and message, and the rest go on in the next run (one run per
 * kind of signed element, whose ID attribute xmlsec1 must be told).
 */
function verifyEach(dtes: { own: string; signed: string }[]): { ok: boolean; out: string }[] {
  const verdicts: { ok: boolean; out: string }[] = [];
  for (const signed of new Set(dtes.map((d) => d.signed))) {
    const indexes = dtes.flatMap((d, i) => (d.signed === signed ? [i] : []));
    const args = ['--verify', '--id-attr:ID', signed];
    while (indexes.length > 0) {
      const run = tool('xmlsec1', [...args, ...indexes.map((i) => dtes[i]!.own)]);
      const passed = run.out.split('\n').filter((l) => l === 'OK').length;
      for (const i of indexes.splice(0, passed)) verdicts[i] = { ok: true, out: '' };
      const stopped = indexes.shift();
      if (stopped !== undefined) verdicts[stopped] = tool('xmlsec1', [...args, dtes[stopped]!.own]);
    }
  }
  return verdicts;
}

/** The schema to validate with, and its name as printed; may write a helper schema into `dir`. */
function schemaFor(kind: string, text: string, dir: string): { file: string; name: string } {
  const name = SCHEMA_OF[kind]!;
  if (kind === 'DTE' && /^(39|41)$/.test(inner(text, 'TipoDTE') ?? '')) {
    // A boleta's DTE is typed only inside EnvioBOLETA_v11.xsd (BOLETADefType), which declares no
    // DTE element of its own: a one-element schema that includes it declares one.
    const file = path.join(dir, 'boleta-dte.xsd');
    const include = path.join(SCHEMAS, 'EnvioBOLETA_v11.xsd');
    fs.writeFileSync(
      file,
      `<?xml version="1.0"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:SiiDte="http://www.sii.cl/SiiDte" ` +
        `targetNamespace="http://www.sii.cl/SiiDte" elementFormDefault="qualified">\n` +
        `  <xs:include schemaLocation="${include}"/>\n  <xs:element name="DTE" type="SiiDte:BOLETADefType"/>\n</xs:schema>\n`,
    );
    return { file, name: 'BOLETADefType (EnvioBOLETA_v11.xsd)' };
  }
  if (kind === 'LibroCompraVenta') {
    // libxml2 2.9 cannot compile LceSiiTypes_v10.xsd's maxInclusive of 30 nines and 4 decimals (it
    // overflows its decimal type); totalDigits 34 and fractionDigits 4 bound the same values, so a
    // copy of the schemas without that one facet validates the same documents.
    const copy = path.join(dir, 'schemas');
    fs.cpSync(SCHEMAS, copy, { recursive: true });
    const types = path.join(copy, 'LceSiiTypes_v10.xsd');
    const facet = /<xs:maxInclusive value="9{30}\.9{4}"\/>/g;
    fs.writeFileSync(types, fs.readFileSync(types, 'latin1').replace(facet, ''), 'latin1');
    return { file: path.join(copy, name), name };
  }
  return { file: path.join(SCHEMAS, name), name };
}

/** The element name of the document's root (after the declaration, comments and PIs). */
function rootOf(text: string): string | null {
  const m = /^(?:\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/.exec(text);
  return m?.[2] ?? null;
}

function checkFile(file: string, cafKey: string | null): void {
  const raw = fs.readFileSync(file);
  const text = raw.toString('latin1');
  const kind = rootOf(text);
  if (!kind || !(kind in SCHEMA_OF)) {
    return report(
      false,
      `${file}: root is DTE, EnvioDTE, EnvioBOLETA, LibroCompraVenta, LibroGuia or LibroBoleta`,
      `root ${kind ?? 'none'}`,
    );
  }
  const longest = Math.max(0, ...text.split('\n').map((l) => l.length));
  if (longest > MAX_LINE) {
    report(
      false,
      `${file}: no line over ${MAX_LINE} characters (longest ${longest})`,
      'CHR-00002: Line too long (4090): the SII refuses the whole file',
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-sii-xml-'));
  try {
    const schema = schemaFor(kind, text, dir);
    const valid = tool('xmllint', ['--noout', '--schema', schema.file, file]);
    report(valid.ok, `${file}: valid against ${schema.name}`, valid.out);
    const inPlace = ['--verify', '--node-xpath', "/*/*[local-name()='Signature']"];
    if (BOOKS.has(kind)) {
      const sig = tool('xmlsec1', [...inPlace, '--id-attr:ID', 'EnvioLibro', file]);
      return report(sig.ok, `${file}: book signature (EnvioLibro, in place)`, sig.out);
    }
    if (kind !== 'DTE') {
      const sig = tool('xmlsec1', [...inPlace, '--id-attr:ID', 'SetDTE', file]);
      report(sig.ok, `${file}: envelope signature (SetDTE, in place)`, sig.out);
    }
    const dtes = [...text.matchAll(/<DTE[\s>][\s\S]*?<\/DTE>/g)].map((m, i) => {
      const own = path.join(dir, `dte-${i + 1}.xml`);
      fs.writeFileSync(own, Buffer.concat([Buffer.from(DECLARATION, 'latin1'), raw.subarray(m.index, m.index + m[0].length)]));
      // The signed element is the DTE's first child: Documento, Liquidacion (43) or Exportaciones (110–112).
      const signed = /^<DTE[^>]*>\s*<(Documento|Liquidacion|Exportaciones)[\s>]/.exec(m[0])?.[1] ?? 'Documento';
      return { xml: m[0], own, signed };
    });
    const signatures = verifyEach(dtes);
    dtes.forEach((d, i) => {
      const label = `${file}: DTE #${i + 1}`;
      report(signatures[i]!.ok, `${label} signature (standalone)`, signatures[i]!.out);
      checkTed(label, d.xml, dir, cafKey);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function main(argv: string[]): number {
  let cafKey: string | null = null;
  if (argv[0] === '--caf-key') {
    if (!argv[1]) return usage();
    cafKey = fs.readFileSync(argv[1], 'utf8');
    argv = argv.slice(2);
  }
  if (argv.length === 0) return usage();
  for (const file of argv) {
    if (fs.existsSync(file)) checkFile(file, cafKey);
    else report(false, `${file}: readable`, 'no such file');
  }
  return failed > 0 ? 1 : 0;
}

function usage(): number {
  console.error('usage: node scripts/check-sii-xml.ts [--caf-key PEM] FILE...');
  return 2;
}

process.exitCode = main(process.argv.slice(2));
