/**
 * Background work of the process (role `worker` or `all`): the job queue's handlers and the
 * periodic scans, collected from the modules that own them.
 */
import type { AppContext } from './context.ts';
import { backgroundLog, safeLogContext } from './lib/log-safe.ts';
import { createWorker, type JobHandler } from './jobs/queue.ts';
import { webhookLoops, webhookPeriodics } from './modules/webhooks/index.ts';
import { credentialsPeriodics } from './modules/credentials/index.ts';
import { folioJobHandlers, folioPeriodics } from './modules/folios/index.ts';
import { dteJobHandlers } from './modules/dte/index.ts';
import { receivedPeriodics } from './modules/received/index.ts';
import { exchangeJobHandlers } from './modules/exchange/index.ts';
import { certificationJobHandlers } from './modules/certification/index.ts';
import { auditPeriodics } from './modules/audit/index.ts';

export interface Periodic {
  name: string;
  everyMs: number;
  /** Also run once right after start (a process restarted more often than everyMs still runs it). */
  runAtStart?: boolean;
  run: () => Promise<void>;
}

/** A long-running loop with its own scheduling (webhook delivery), started and stopped with the process. */
export interface Loop {
  name: string;
  start(): void;
  /** Resolves once work in flight has finished. */
  stop(): Promise<void>;
}

export interface BackgroundOptions {
  pollMs?: number;
  concurrency?: number;
}

export function collectJobHandlers(ctx: AppContext): Record<string, JobHandler> {
  return {
    ...folioJobHandlers(ctx.services.folios),
    ...dteJobHandlers(ctx.services.dteSend),
    ...exchangeJobHandlers(ctx.services.exchange),
    ...certificationJobHandlers(ctx.services.certificationBookSends),
  };
}

export function collectPeriodics(ctx: AppContext): Periodic[] {
  return [
    ...credentialsPeriodics({ credentials: ctx.services.credentials, db: ctx.db, clock: ctx.clock }),
    ...webhookPeriodics(ctx),
    ...folioPeriodics(ctx.services.folios, ctx.services.folioAnnulment, ctx.config.folioReservationTimeoutMs),
    ...receivedPeriodics(ctx.services.received),
    ...auditPeriodics(ctx.services.audit, ctx.config.auditRetentionDays),
    // Dashboard sessions past their idle or absolute expiry (each is also refused and deleted on sight).
    { name: 'dashboard.sessions.purge', everyMs: 15 * 60_000, run: async () => void (await ctx.services.dashboardAuth.purgeExpired()) },
    // Member invitations past their expiry (an expired link is refused anyway; this drops the row).
    {
      name: 'members.invitations.purge',
      everyMs: 60 * 60_000,
      run: async () => void (await ctx.services.members.purgeExpiredInvitations()),
    },
  ];
}

export function collectLoops(ctx: AppContext): Loop[] {
  return [...webhookLoops(ctx)];
}

export function startBackground(ctx: AppContext, opts: BackgroundOptions = {}) {
  const worker = createWorker({
    db: ctx.db,
    handlers: collectJobHandlers(ctx),
    concurrency: opts.concurrency ?? 8,
    pollMs: opts.pollMs ?? 250,
    log: backgroundLog,
  });
  worker.start();
  const loops = collectLoops(ctx);
  for (const l of loops) l.start();
  const timers = collectPeriodics(ctx).flatMap((p) => {
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      p.run()
        .catch((e: unknown) => console.error(`periodic ${p.name} failed`, safeLogContext(e)))
        .finally(() => {
          busy = false;
        });
    };
    const t = setInterval(tick, p.everyMs);
    t.unref();
    if (!p.runAtStart) return [t];
    const first = setTimeout(tick, 1_000);
    first.unref();
    return [t, first];
  });
  return {
    worker,
    async stop() {
      for (const t of timers) clearInterval(t);
      await Promise.all(loops.map((l) => l.stop()));
      await worker.stop();
    },
  };
}
