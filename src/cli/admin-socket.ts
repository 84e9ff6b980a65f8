import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { keyStatus, pruneKeys, rotateKeys } from '../secrets/keys-admin.ts';
import type { StoreName } from '../secrets/keyring-files.ts';

/**
 * The embedded database can be opened by one process only, so while the server runs, `npx dte`
 * commands reach it through a Unix socket inside the data directory (mode 0600: only the same
 * OS user can use it — the same users who could read the data files anyway).
 */
export const adminSocketPath = (dataDir: string) => path.join(dataDir, 'admin.sock');

export type AdminCommand = { command: string; args: Record<string, unknown> };
export type AdminHandler = (cmd: AdminCommand) => Promise<unknown>;

export async function startAdminSocket(dataDir: string, handler: AdminHandler): Promise<() => Promise<void>> {
  const file = adminSocketPath(dataDir);
  fs.rmSync(file, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const cmd = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminCommand;
          const result = await handler(cmd);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
        } catch (e) {
          const err = e as { code?: string; message?: string };
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ok: false, error: { code: err.code ?? 'error', message: err.message ?? String(e) } }));
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  fs.chmodSync(file, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      fs.rmSync(file, { force: true });
    });
}

/** The server may still be starting (lock taken, socket not yet open): retry for a while. */
export async function callAdminSocket(dataDir: string, cmd: AdminCommand, waitMs = 30_000): Promise<unknown> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await callOnce(dataDir, cmd);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== 'ECONNREFUSED' && code !== 'ENOENT') || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

function callOnce(dataDir: string, cmd: AdminCommand): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: adminSocketPath(dataDir), method: 'POST', path: '/' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          ok: boolean;
          result?: unknown;
          error?: { code: string; message: string };
        };
        if (body.ok) resolve(body.result);
        else reject(Object.assign(new Error(body.error?.message), { code: body.error?.code }));
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(cmd));
  });
}

/** The commands the socket and the direct CLI path share. */
export function adminCommands(ctx: AppContext): AdminHandler {
  return async ({ command, args }) => {
    switch (command) {
      // The running server's URLs travel back so the CLI's hints name the port it really listens
      // on, not the one the CLI's own environment would give.
      case 'account.set-password':
        return {
          ...(await ctx.services.dashboardAuth.setPassword(String(args.email ?? ''), String(args.password ?? ''))),
          appUrl: ctx.config.appUrl,
        };
      case 'keys.status':
        return keyStatus(ctx);
      case 'keys.rotate':
        return rotateKeys(ctx, { stores: storesArg(args.store), addKey: args.addKey !== false });
      case 'keys.prune':
        return pruneKeys(ctx, storesArg(args.store));
      case 'account.create':
        return {
          ...(await ctx.services.accounts.create({
            name: String(args.name ?? ''),
            email: String(args.email ?? ''),
            withApiKey: true,
            withTestApiKey: true,
          })),
          baseUrl: ctx.config.baseUrl,
        };
      default:
        throw Object.assign(new Error(`Unknown command ${command}`), { code: 'unknown_command' });
    }
  };
}

const storesArg = (v: unknown): StoreName[] => {
  if (v === 'data' || v === 'secrets') return [v];
  if (v === undefined || v === 'all') return ['data', 'secrets'];
  throw Object.assign(new Error('--store must be data, secrets or all'), { code: 'invalid_argument' });
};
