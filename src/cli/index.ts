import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { createContext } from '../context.ts';
import { DirectoryLockedError } from '../db/dir-lock.ts';
import { openStores } from '../stores.ts';
import { systemClock } from '../lib/clock.ts';
import { adminCommands, callAdminSocket, type AdminCommand } from './admin-socket.ts';
import { readNewPassword } from './read-secret.ts';
import { EMULATOR_USAGE, runEmulatorCommand } from '../provider/emulator/index.ts';
import { runTestCertificateCommand, TEST_CERTIFICATE_USAGE } from './test-certificate.ts';

const USAGE = `Usage: npx dte <command>

  account create --name NAME --email EMAIL [--json]   create an account and its first API keys (live and test)
  account set-password --email EMAIL                 set the dashboard password (read from stdin or a prompt)
  keys status                                          which key protects how many ciphertexts, per store
  keys rotate [--store data|secrets|all] [--no-new-key]
                                                       re-encrypt everything under a new key (docs/secrets.md)
  keys prune [--store data|secrets|all]                remove keys nothing uses any more (key files only)
${EMULATOR_USAGE}
${TEST_CERTIFICATE_USAGE}
  help                                                 this text

Settings come from the same environment variables as the server (DATABASE_URL, DATA_DIR, PORT, …): give the
CLI the server's settings. While the server runs, commands go through it; the CLI never creates a database.`;

/** A refusal the CLI explains in one line (exit 1), with no error code around it. */
export class CliRefusal extends Error {}

/**
 * Runs an admin command against the database directly, or, when the embedded database is held
 * by a running server, through that server's admin socket.
 *
 * The CLI reads the same settings as the server (DATA_DIR, PORT, DATABASE_URL, … through
 * loadConfig), so it finds the server's data where the server keeps it. It never creates an
 * embedded database of its own: a missing one almost always means the server runs with another
 * DATA_DIR, and an account made in a fresh ./data would be invisible to it.
 */
async function runAdmin(config: Config, cmd: AdminCommand): Promise<unknown> {
  if (!config.databaseUrl && !fs.existsSync(path.join(config.dataDir, 'main')))
    throw new CliRefusal(
      `no server data at ${config.dataDir}; start the service with npm start or set DATA_DIR (and PORT) to the ones the server uses`,
    );
  let stores;
  try {
    stores = await openStores(config, (m) => console.error(m));
  } catch (e) {
    if (e instanceof DirectoryLockedError) return callAdminSocket(config.dataDir, cmd);
    throw e;
  }
  // Say which database is written: no server holds it, so this process opens it itself.
  console.error(
    config.databaseUrl
      ? `Using the PostgreSQL database of DATABASE_URL directly; with these settings the service answers on ${config.baseUrl}.`
      : `No server is running on ${config.dataDir}; using its embedded database directly. ` +
          `Started with these settings (npm start), the service will answer on ${config.baseUrl}.`,
  );
  try {
    const ctx = createContext({ config, db: stores.db, clock: systemClock, secretsDb: stores.secretsDb, keyrings: stores.keyrings });
    return await adminCommands(ctx)(cmd);
  } finally {
    await stores.close();
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const [group, action, ...rest] = argv;
  try {
    if (group === 'emulator') return await runEmulatorCommand(argv.slice(1));
    if (group === 'test-certificate') return runTestCertificateCommand(argv.slice(1));
    if (group === 'account' && action === 'create') {
      const { values } = parseArgs({
        args: rest,
        options: { name: { type: 'string' }, email: { type: 'string' }, json: { type: 'boolean', default: false } },
      });
      if (!values.name || !values.email) {
        console.error('account create needs --name and --email');
        return 2;
      }
      const config = loadConfig();
      const result = (await runAdmin(config, { command: 'account.create', args: { name: values.name, email: values.email } })) as {
        account: unknown;
        apiKey: { key: string };
        /** Absent from a server older than this CLI, as is baseUrl. */
        testApiKey?: { key: string };
        baseUrl?: string;
      };
      const out = {
        account: result.account,
        apiKey: result.apiKey.key,
        ...(result.testApiKey ? { testApiKey: result.testApiKey.key } : {}),
      };
      if (values.json) console.log(JSON.stringify(out));
      else {
        console.log('Account created:', JSON.stringify(out.account, null, 2));
        console.log(`\nAPI key (shown once, keep it safe):\n  ${out.apiKey}\n`);
        // docs/design.md "Test mode": test keys' objects stay on the built-in emulator.
        if (out.testApiKey) console.log(`Test API key (test mode: nothing reaches the SII; shown once):\n  ${out.testApiKey}\n`);
        console.log(`Try it:\n  curl -H "Authorization: Bearer ${out.apiKey}" ${result.baseUrl ?? config.baseUrl}/api/v1/account`);
      }
      return 0;
    }
    if (group === 'account' && action === 'set-password') {
      // strict parsing refuses a --password option: a password in argv is visible in `ps`.
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' } } });
      if (!values.email) {
        console.error('account set-password needs --email; the password is read from stdin or a prompt, never from the command line');
        return 2;
      }
      const config = loadConfig();
      const password = await readNewPassword();
      const result = (await runAdmin(config, { command: 'account.set-password', args: { email: values.email, password } })) as {
        sessionsEnded: number;
        appUrl?: string;
      };
      console.log(
        `Password set for ${values.email}. Log in at ${result.appUrl ?? config.appUrl}/login` +
          (result.sessionsEnded ? ` (${result.sessionsEnded} open session(s) ended).` : '.'),
      );
      return 0;
    }
    if (group === 'keys' && (action === 'status' || action === 'rotate' || action === 'prune')) {
      const { values } = parseArgs({
        args: rest,
        options: { store: { type: 'string', default: 'all' }, 'no-new-key': { type: 'boolean', default: false } },
      });
      const config = loadConfig();
      const args = { store: values.store, addKey: !values['no-new-key'] };
      const result = await runAdmin(config, { command: `keys.${action}`, args });
      console.log(JSON.stringify(result, null, 2));
      if (action === 'rotate')
        console.error(
          '\nEverything is now under the current keys. When `npx dte keys status` shows no ciphertext under an old key, ' +
            'remove it: `npx dte keys prune` for key files, or drop it from DATA_ENCRYPTION_KEY / SECRETS_ENCRYPTION_KEY.',
        );
      return 0;
    }
    if (!group || group === 'help' || group === '--help') {
      console.log(USAGE);
      return group ? 0 : 2;
    }
    console.error(`Unknown command: ${argv.join(' ')}\n\n${USAGE}`);
    return 2;
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (e instanceof ConfigError || e instanceof CliRefusal) console.error(err.message);
    else console.error(`Error${err.code ? ` (${err.code})` : ''}: ${err.message ?? String(e)}`);
    return 1;
  }
}
