import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { launch, ROOT, until } from './launch.ts';
import { openDatabase } from '../../src/db/open.ts';
import { EMULATOR_MIGRATIONS } from '../../src/provider/emulator/store.ts';

/**
 * The data and keys of a service that has started once, to copy into a test server's new DATA_DIR
 * and KEYS_DIR (test/support/processes.ts `startServer`, browser.ts `startServerProcess`).
 *
 * A first start on a new DATA_DIR creates the embedded databases (PGlite's initdb and every
 * migration, in a child process) and the keys: 15–20 s on 2 cores, paid by every test that starts a
 * server on the embedded default, most of which only want a running server (docs/performance.md,
 * "Fifth round: two workers…"). The copy is what that first start left, made by the same code: one
 * per content of `src/` (its tests aside) and `package-lock.json` (every file's name and bytes
 * hashed), built by the first test process that needs it (the others wait for it), kept in the
 * system's temporary folder and reused by later runs of the same tree; copies of another tree,
 * older than a day, are removed. Tests of the first start itself use a fresh directory (`fresh`),
 * as do the demo, the smoke test and the tests of the embedded database's own directory handling. A
 * test that keeps an embedded database on disk (`startTestApp`'s `dataDir`) starts from a copy of
 * that first start's main or secrets database; one that starts the standalone emulator on a folder,
 * from a copy of the emulator's migrated database, made the same way.
 */

function treeKey(): string {
  const h = crypto.createHash('sha256');
  // The dependencies too (PGlite's version decides the data directory's format).
  h.update(fs.readFileSync(path.join(ROOT, 'package-lock.json'))).update('\0');
  const files = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).sort();
  for (const f of files) {
    const full = path.join(ROOT, 'src', f);
    // The tests beside the code are not what a start runs: editing one keeps the templates.
    if (f.endsWith('.test.ts') || !fs.statSync(full).isFile()) continue;
    h.update(f).update('\0').update(fs.readFileSync(full)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the service once on `dir`/data and `dir`/keys, waits until it listens, and stops it. */
async function firstStart(dir: string): Promise<void> {
  const p = launch(['src/main.ts'], {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    DATA_DIR: path.join(dir, 'data'),
    KEYS_DIR: path.join(dir, 'keys'),
  });
  try {
    await until(
      "the service's first start (for test servers' data)",
      p,
      async () => (p.log().includes('listening on') ? true : undefined),
      120_000,
    );
  } catch (e) {
    await p.kill();
    throw e;
  }
  await p.stop();
  if ((await p.exited) !== 0) throw new Error(`the service's first start did not stop cleanly:\n${p.log()}`);
}

/**
 * The folder `build` fills, made once per `name` and state of the tree (the first test process that
 * needs it builds it in a staging folder; the others wait for its READY mark), kept in the system's
 * temporary folder for later runs of the same tree. Copies of another tree older than a day go.
 */
async function cachedFolder(name: string, build: (staging: string) => Promise<void>): Promise<string> {
  const tmp = os.tmpdir();
  const prefix = `dte-${name}-data-`;
  const final = path.join(tmp, `${prefix}${treeKey()}`);
  const ready = path.join(final, 'READY');
  const lock = `${final}.lock`;
  for (const e of fs.readdirSync(tmp)) {
    const p = path.join(tmp, e);
    if (e.startsWith(prefix) && !p.startsWith(final) && Date.now() - fs.statSync(p).mtimeMs > 86_400_000)
      fs.rmSync(p, { recursive: true, force: true });
  }
  for (const deadline = Date.now() + 180_000; !fs.existsSync(ready);) {
    if (Date.now() > deadline) throw new Error(`no test ${name} template at ${final} after 3 minutes`);
    try {
      fs.mkdirSync(lock); // whoever makes the lock builds; the others wait for READY
    } catch {
      // A builder that died leaves its lock: taken over after two minutes.
      const since = fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      await sleep(250);
      continue;
    }
    try {
      const staging = fs.mkdtempSync(path.join(tmp, `${prefix}building-`));
      await build(staging);
      fs.rmSync(final, { recursive: true, force: true });
      fs.renameSync(staging, final);
      fs.writeFileSync(ready, '');
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  return final;
}

let built: Promise<string> | undefined;

/** The folder holding `data` and `keys` of a first start by this tree's code. */
export function serverDataTemplate(): Promise<string> {
  return (built ??= cachedFolder('server', firstStart));
}

let emulatorBuilt: Promise<string> | undefined;

/** The folder holding `db`: the standalone emulator's database as it creates and migrates it. */
function emulatorDataTemplate(): Promise<string> {
  return (emulatorBuilt ??= cachedFolder('emulator', async (staging) => {
    const db = await openDatabase({ dir: path.join(staging, 'db'), migrationsDir: EMULATOR_MIGRATIONS });
    await db.close();
  }));
}

/** Fills `dataDir` and `keysDir` (new, absent) with a copy of the template's, modes kept. */
export async function copyServerData(dataDir: string, keysDir: string): Promise<void> {
  const from = await serverDataTemplate();
  fs.cpSync(path.join(from, 'data'), dataDir, { recursive: true, preserveTimestamps: true });
  fs.cpSync(path.join(from, 'keys'), keysDir, { recursive: true, preserveTimestamps: true });
}

/**
 * A new embedded database at `dir` (absent) for a test that keeps one on disk: a copy of the main or
 * secrets database of the template's first start (migrated, holding nothing but its migrations'
 * record), instead of creating and migrating one (5–9 s of CPU, docs/performance.md "Eighth round").
 */
export async function copyMigratedDatabase(which: 'main' | 'secrets', dir: string): Promise<void> {
  const from = await serverDataTemplate();
  fs.cpSync(path.join(from, 'data', which), dir, { recursive: true, preserveTimestamps: true });
}

/** The standalone emulator's migrated database in `dataDir` (its `db`), for a test that starts one on a folder. */
export async function copyEmulatorDatabase(dataDir: string): Promise<void> {
  const from = await emulatorDataTemplate();
  fs.cpSync(path.join(from, 'db'), path.join(dataDir, 'db'), { recursive: true, preserveTimestamps: true });
}
