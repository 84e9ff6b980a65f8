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
  /**
   * The SII's own services (the SII face, sii/): calls per operation (`CrSeed.getSeed`,
   * `DTEUpload`, …) and the tokens issued per kind. Not part of `total`, which counts SimpleAPI calls.
   */
  sii: { total: number; routes: Record<string, OutcomeCounts>; tokensIssued: { soap: number; rest: number } };
}

export const outcomeOf = (status: number): Outcome => (status === 429 ? '429' : status >= 500 ? '5xx' : status >= 400 ? '4xx' : '2xx');

const zero = (): OutcomeCounts => ({ total: 0, '2xx': 0, '4xx': 0, '429': 0, '5xx': 0 });

export function createCallStats(now: () => Date = () => new Date()) {
  let since = now();
  let routes = new Map<RouteName, { host: Host; counts: OutcomeCounts }>();
  let sii = new Map<string, OutcomeCounts>();
  let tokens = { soap: 0, rest: 0 };
  return {
    /** One call to the SII face, by operation. */
    recordSii(operation: string, status: number): void {
      let c = sii.get(operation);
      if (!c) sii.set(operation, (c = zero()));
      c.total++;
      c[outcomeOf(status)]++;
    },
    tokenIssued(kind: 'soap' | 'rest'): void {
      tokens[kind]++;
    },
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
      const siiRoutes = Object.fromEntries([...sii].map(([k, c]) => [k, { ...c }]));
      const siiTotal = [...sii.values()].reduce((n, c) => n + c.total, 0);
      return {
        since: since.toISOString(),
        total: outcomes.total,
        outcomes,
        hosts,
        routes: out,
        sii: { total: siiTotal, routes: siiRoutes, tokensIssued: { ...tokens } },
      };
    },
    reset(): void {
      since = now();
      routes = new Map();
      sii = new Map();
      tokens = { soap: 0, rest: 0 };
    },
  };
}

export type CallStats = ReturnType<typeof createCallStats>;
