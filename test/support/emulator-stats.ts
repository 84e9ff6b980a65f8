import type { EmulatorStats, RouteName } from '../../src/provider/emulator/stats.ts';

/**
 * The calls a standalone emulator answered (`GET /emulator/stats`), read as a client of the
 * provider would count them: per route, on the DTE host, and how many were 429s.
 */
export interface CallCounts {
  route(name: RouteName): number;
  /** Calls to the DTE host except the subscription status (which costs no quota). */
  dteHost(): number;
  tooMany(): number;
}

export async function emulatorCalls(url: string): Promise<CallCounts> {
  const raw = (await (await fetch(`${url}/emulator/stats`)).json()) as EmulatorStats;
  return {
    route: (name) => raw.routes[name]?.total ?? 0,
    dteHost: () => raw.hosts.api.total - (raw.routes.subscription?.total ?? 0),
    tooMany: () => raw.outcomes['429'],
  };
}

/** What happened between two readings: DTE-host calls (quota-costing), by route, and the 429s. */
export interface CallDeltas {
  calls: number;
  uploads: number;
  envelopeQueries: number;
  documentQueries: number;
  tooMany: number;
}

export const callDeltas = (before: CallCounts, after: CallCounts): CallDeltas => ({
  calls: after.dteHost() - before.dteHost(),
  uploads: after.route('send') - before.route('send'),
  envelopeQueries: after.route('envioStatus') - before.route('envioStatus'),
  documentQueries: after.route('dteStatus') - before.route('dteStatus'),
  tooMany: after.tooMany() - before.tooMany(),
});
