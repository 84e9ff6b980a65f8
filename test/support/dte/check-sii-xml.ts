import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Test-only: runs the reference checker `shared/tools/check-sii-xml` (xmllint + xmlsec1 + openssl)
 * over documents. Throws — never skips — when the tool or its dependencies are missing, so a
 * machine without them fails loudly.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, '..', '..', '..');

export const INSTALL_HINT =
  'install its dependencies with: apt-get update && apt-get install -y libxml2-utils xmlsec1 (and python3, openssl)';

export function checkSiiXmlPath(): string {
  const candidates = [
    process.env.CHECK_SII_XML,
    path.resolve(REPO_ROOT, '..', 'shared', 'tools', 'check-sii-xml'),
    '/work/shared/tools/check-sii-xml',
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  throw new Error(`check-sii-xml not found (looked in ${candidates.filter(Boolean).join(', ')}); set CHECK_SII_XML to its path`);
}

/** Directory of the shared SII material (schemas, samples, certs) beside the repository. */
export function siiSharedDir(): string {
  return path.resolve(path.dirname(checkSiiXmlPath()), '..', 'sii');
}

export function assertCheckerDependencies(): void {
  for (const bin of ['xmllint', 'xmlsec1', 'openssl', 'python3']) {
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
    const r = spawnSync('python3', [tool, ...args], { encoding: 'utf8', timeout: 120_000 });
    if (r.error) throw new Error(`check-sii-xml could not run: ${r.error.message}; ${INSTALL_HINT}`);
    const output = (r.stdout ?? '') + (r.stderr ?? '');
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    return { exitCode: r.status ?? -1, output, lines, failures: lines.filter((l) => l.startsWith('FAIL')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
