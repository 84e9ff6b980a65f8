import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.ts';
import type { OneTimeFlash } from '../http/flash.ts';
import type { CookieSettings } from '../http/state.ts';

export interface DashboardDeps {
  ctx: AppContext;
  cookies: CookieSettings;
  /** Secrets a POST created, held for the one GET that shows them (http/flash.ts). */
  flash: OneTimeFlash;
}

/** A group of dashboard pages, registered inside the dashboard plugin (so its hooks apply). */
export type DashboardRoutes = (app: FastifyInstance, deps: DashboardDeps) => void;
