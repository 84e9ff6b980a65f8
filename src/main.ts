/**
 * Process wiring: config -> database -> migrations -> context -> jobs -> HTTP -> signals.
 * `--role api|worker` (or ROLE) splits the API from the background workers; the default runs both.
 */
import { enableCompileCache } from './lib/compile-cache.ts';

// Before the service's modules are compiled: they are imported below, not statically (src/lib/compile-cache.ts).
enableCompileCache();
const { loadConfig, ConfigError, describeSmtp } = await import('./config.ts');
const { openStores } = await import('./stores.ts');
const { DirectoryLockedError } = await import('./db/dir-lock.ts');
const { hasPgliteNodeFlags, PGLITE_NODE_FLAGS } = await import('./db/pglite.ts');
const { createContext } = await import('./context.ts');
const { buildApp } = await import('./http/app.ts');
const { systemClock } = await import('./lib/clock.ts');
const { startBackground } = await import('./worker.ts');
const { adminCommands, startAdminSocket } = await import('./cli/admin-socket.ts');

/** The HTTP port is taken by another process: one line naming PORT, no stack trace (src/main.ts). */
export class PortInUseError extends Error {
  constructor(port: number, host: string) {
    super(`port ${port} is in use${host === '127.0.0.1' ? '' : ` on ${host}`}: set PORT=… or stop the other process`);
    this.name = 'PortInUseError';
  }
}

function roleFromArgs(argv: string[]): string | undefined {
  const i = argv.indexOf('--role');
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--role='))?.slice(7);
}

export async function main(argv = process.argv.slice(2)) {
  const role = roleFromArgs(argv);
  const config = loadConfig(role ? { ...process.env, ROLE: role } : process.env);
  const stores = await openStores(config, (m) => console.log(m));
  const { db } = stores;
  const ctx = createContext({ config, db, clock: systemClock, secretsDb: stores.secretsDb, keyrings: stores.keyrings });
  const app = await buildApp(ctx);
  const stops: (() => Promise<void>)[] = [];
  // With the embedded database, `npx dte …` commands reach this process through a local socket.
  if (!config.databaseUrl) stops.push(await startAdminSocket(config.dataDir, adminCommands(ctx)));
  if (config.role !== 'api') {
    const background = startBackground(ctx);
    stops.push(() => background.stop());
  }
  if (config.role !== 'worker') {
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (e) {
      // Undo what started (workers, admin socket, databases) before saying why we stop.
      for (const stop of stops) await stop().catch(() => {});
      await app.close().catch(() => {});
      await stores.close().catch(() => {});
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(config.port, config.host);
      throw e;
    }
    const where = config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`;
    console.log(`\nDTE service listening on ${config.baseUrl} (database: ${where}, provider: ${config.provider})`);
    console.log(`Secrets store: ${stores.secretsDescription}`);
    if (!config.databaseUrl && !hasPgliteNodeFlags())
      console.log(
        `Memory: started without ${PGLITE_NODE_FLAGS.filter((f) => !process.execArgv.includes(f)).join(' ')} (npm start passes ${PGLITE_NODE_FLAGS.join(' ')}): the embedded database's server peaks higher, near 1 GiB without the first two (docs/performance.md, "Memory")`,
      );
    console.log(`Outbound e-mail: ${describeSmtp(config.smtp.url)}`);
    console.log(`API reference: ${config.baseUrl}/docs`);
    console.log(
      config.signupEnabled
        ? `Dashboard: ${config.appUrl}/ (sign up there), or create your first account and API key with:`
        : `Dashboard: ${config.appUrl}/ (sign-up is off). Create accounts and API keys with:`,
    );
    console.log('  npx dte account create --name "My SaaS" --email you@example.com');
    console.log('');
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    for (const stop of stops) await stop().catch(() => {});
    await app.close().catch(() => {});
    await stores.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  return { app, ctx };
}

if (import.meta.main) {
  main().catch((e: unknown) => {
    if (e instanceof ConfigError || e instanceof DirectoryLockedError || e instanceof PortInUseError) {
      console.error(`\n${e.message}\n`);
      process.exit(1);
    }
    console.error(e);
    process.exit(1);
  });
}
