import type { Host } from '../simpleapi/protocol.ts';

/**
 * Every SimpleAPI call the emulator answers, by route (protocol.ts ROUTES names) and outcome — how
 * tests and the bench count "provider calls per 1,000 documents". Counted when the answer is sent,
 * whatever it is (a 401, a 429 and a multipart error are calls too); the emulator's own helper
 * routes (`/emulator/*`) are not SimpleAPI calls and are not counted. Kept in memory per emulator
 * instance: one standalone emulator counts every client's calls; an in-process emulator counts
 * those of its own process.
 */
export type Outcome = '2xx' | '4xx' | '429' | '5xx';
export type RouteName =
  'subscription' | 'folios' | 'foliosAvailable' | 'annul' | 'send' | 'envioStatus' | 'dteStatus' | 'acceptance' | 'unknown';

export type OutcomeCounts = Record<Outcome, number> & { total: number };

export interface EmulatorStats {
  /** When counting started (creation or the last reset). */
  since: string;
  total: number;
  outcomes: OutcomeCounts;
  hosts: Record<Host, OutcomeCounts>;
  routes: Partial<Record<RouteName, OutcomeCounts & { host: Host }>>;
}

export const outcomeOf = (status: number): Outcome => (status === 429 ? '429' : status >= 500 ? '5xx' : status >= 400 ? '4xx' : '2xx');

const zero = (): OutcomeCounts => ({ total: 0, '2xx': 0, '4xx': 0, '429': 0, '5xx': 0 });

export function createCallStats(now: () => Date = () => new Date()) {
  let since = now();
  let routes = new Map<RouteName, { host: Host; counts: OutcomeCounts }>();
  return {
    record(route: RouteName, host: Host, status: number): void {
      let r = routes.get(route);
      if (!r) routes.set(route, (r = { host, counts: zero() }));
      r.counts.total++;
      r.counts[outcomeOf(status)]++;
    },
    snapshot(): EmulatorStats {
      const outcomes = zero();
      const hosts: Record<Host, OutcomeCounts> = { api: zero(), servicios: zero() };
      const out: EmulatorStats['routes'] = {};
      for (const [name, { host, counts }] of routes) {
        out[name] = { host, ...counts };
        for (const k of Object.keys(counts) as (keyof OutcomeCounts)[]) {
          outcomes[k] += counts[k];
          hosts[host][k] += counts[k];
        }
      }
      return { since: since.toISOString(), total: outcomes.total, outcomes, hosts, routes: out };
    },
    reset(): void {
      since = now();
      routes = new Map();
    },
  };
}

export type CallStats = ReturnType<typeof createCallStats>;
