/**
 * The baseline of the read benchmark: Fastify with nothing but one route answering a small JSON
 * object, as its own process (like the service), so `authenticated ÷ bare` is measured with the
 * same load generator, settings and machine in the same run. Run directly it prints its port.
 */
import Fastify from 'fastify';
import { launch, type Proc } from '../../test/support/processes.ts';

export interface BareHandle {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/** Starts this file as a separate process and resolves with the route's URL once it listens. */
export async function startBareFastify(): Promise<BareHandle> {
  const p: Proc = launch(['bench/lib/bare-fastify.ts'], {});
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = /listening on (\d+)/.exec(p.log());
    if (m) return { url: `http://127.0.0.1:${m[1]}/bare`, pid: p.pid, stop: () => p.stop() };
    if (p.proc.exitCode !== null || Date.now() > deadline) throw new Error(`bare Fastify did not start:\n${p.log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

if (import.meta.main) {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ id: '0b8f6c2e-6f0a-4c55-9a59-2d0d1f0e7a10', name: 'Bench SpA', status: 'active' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  console.log(`listening on ${typeof addr === 'object' && addr ? addr.port : 0}`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
