import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../support/processes.ts';

/** `npm run demo` completes: every document answered, every delivery verified, login printed. */
it('the demo runs the whole flow and ends with the dashboard credentials', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-'));
  const r = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(
      process.execPath,
      ['scripts/demo.ts', '--exit'],
      { cwd: ROOT, env: { ...process.env, BASE_URL: '', APP_URL: '', DEMO_DIR: dir, PORT: '0' }, timeout: 240_000 },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: stdout + stderr }),
    ),
  );
  const pdfs = fs.existsSync(path.join(dir, 'pdf')) ? fs.readdirSync(path.join(dir, 'pdf')) : [];
  fs.rmSync(dir, { recursive: true, force: true });
  expect(r.code, r.out).toBe(0);
  for (const t of [33, 34, 39, 41, 46, 52, 56, 61])
    expect(
      pdfs.some((f) => f.startsWith(`DTE-T${t}-`)),
      `PDF of ${t}`,
    ).toBe(true);
  expect(pdfs).toContain('DTE-T39-F1-80mm.pdf');
  for (const t of [33, 34, 39, 41, 46, 52, 56, 61]) expect(r.out).toMatch(new RegExp(`✓ ${t}\\s+folio \\d+\\s+accepted`));
  expect(r.out).toMatch(/signature verified\s+tenant\.credentials\.updated/);
  // Each accepted non-boleta document e-mailed to its receptor, into the local mailbox.
  for (const t of [33, 34, 46, 52, 56, 61]) expect(r.out).toMatch(new RegExp(`✓ ${t}\\s+folio \\d+\\s+sent\\s+intercambio@`));
  expect(r.out).not.toContain('✗');
  expect(r.out).toMatch(/e-mail\s+demo@example\.com\n\s+password\s+demo-/);
}, 300_000);
