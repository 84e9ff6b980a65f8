import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Test-only: runs the project's conformance checker `scripts/check-sii-xml.ts` (xmllint + xmlsec1 +
 * openssl, against the schemas and keys in this repository) over documents. `CHECK_SII_XML` names
 * another checker with the same command line and output (a Python script or an executable), such
 * as the reference checker `.ci/reference-check` runs. Throws — never skips — when the tool or its
 * dependencies are missing, so a machine without them fails loudly.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, '..', '..', '..');

export const INSTALL_HINT = 'install its dependencies with: apt-get update && apt-get install -y libxml2-utils xmlsec1 openssl';

export function checkSiiXmlPath(): string {
  const tool = process.env.CHECK_SII_XML || path.join(REPO_ROOT, 'scripts', 'check-sii-xml.ts');
  if (!existsSync(tool)) throw new Error(`check-sii-xml not found at ${tool}; unset CHECK_SII_XML or point it at the checker`);
  return tool;
}

/** The command that runs the checker: ours with the repository's Node.js, a Python one with python3. */
function checkerCommand(tool: string): [string, string[]] {
  if (tool.endsWith('.ts')) {
    const repoNode = path.join(REPO_ROOT, 'node_modules', '.bin', 'node');
    return [existsSync(repoNode) ? repoNode : process.execPath, [tool]];
  }
  const python = readFileSync(tool, 'latin1').slice(0, 100).startsWith('#!/usr/bin/env python3');
  return python ? ['python3', [tool]] : [tool, []];
}

export function assertCheckerDependencies(): void {
  for (const bin of ['xmllint', 'xmlsec1', 'openssl']) {
    const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`check-sii-xml needs ${bin}, which is not installed: ${INSTALL_HINT}`);
  }
}

export interface CheckResult {
  exitCode: number;
  output: string;
  lines: string[];
  failures: string[];
}

export function runCheckSiiXml(files: readonly { name: string; bytes: Buffer }[], opts: { cafKeyPem?: string } = {}): CheckResult {
  assertCheckerDependencies();
  const tool = checkSiiXmlPath();
  const dir = mkdtempSync(path.join(tmpdir(), 'check-sii-xml-'));
  try {
    const args: string[] = [];
    if (opts.cafKeyPem) {
      const keyFile = path.join(dir, 'caf-key.pem');
      writeFileSync(keyFile, opts.cafKeyPem);
      args.push('--caf-key', keyFile);
    }
    for (const f of files) {
      const p = path.join(dir, f.name);
      writeFileSync(p, f.bytes);
      args.push(p);
    }
    const [cmd, pre] = checkerCommand(tool);
    const r = spawnSync(cmd, [...pre, ...args], { encoding: 'utf8', timeout: 120_000 });
    if (r.error) throw new Error(`check-sii-xml could not run: ${r.error.message}; ${INSTALL_HINT}`);
    let output = (r.stdout ?? '') + (r.stderr ?? '');
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    const failures: string[] = [];
    let bridged = 0;
    for (const l of lines.filter((x) => x.startsWith('FAIL'))) {
      const gap = checkerGap(l, dir);
      if (gap === null) failures.push(l);
      else if (gap.ok) bridged++;
      else failures.push(`${l} (and xmlsec1 with --id-attr:ID ${gap.root}: ${gap.output})`);
    }
    if (bridged > 0) output += `\n(${bridged} standalone signatures of Liquidacion/Exportaciones roots verified with xmlsec1 directly)`;
    return { exitCode: failures.length > 0 ? (r.status ?? -1) || 1 : 0, output, lines, failures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A checker that verifies a DTE's standalone signature with the ID registered on `Documento` only
 * (as the reference checker may) can never verify the other two roots of DTE_v10.xsd
 * (`Liquidacion` for 43, `Exportaciones` for 110–112) whatever their bytes. For exactly that
 * failure, the same xmlsec1 check is run here with the ID registered on the document's own root;
 * any other failure stands. Ours registers the right root and never prints that failure for them.
 */
function checkerGap(line: string, dir: string): { ok: boolean; root: string; output: string } | null {
  const m = /^FAIL\s+(\S+): DTE #(\d+) signature \(standalone\)/.exec(line);
  if (!m) return null;
  const text = readFileSync(m[1]!, 'latin1');
  const dte = [...text.matchAll(/<DTE[\s>][\s\S]*?<\/DTE>/g)][Number(m[2]) - 1]?.[0];
  const root = dte && /^<DTE[^>]*><(Liquidacion|Exportaciones) ID=/.exec(dte)?.[1];
  if (!dte || !root) return null;
  const file = path.join(dir, `gap-${m[2]}-${path.basename(m[1]!)}`);
  writeFileSync(file, Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?>\n' + dte, 'latin1'));
  const r = spawnSync('xmlsec1', ['--verify', '--id-attr:ID', root, file], { encoding: 'utf8' });
  return { ok: r.status === 0, root, output: ((r.stdout ?? '') + (r.stderr ?? '')).trim().split('\n').slice(-3).join(' ') };
}
