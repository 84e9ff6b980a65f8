/** One route module per resource group of the contract, registered in this order. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';
import accountsRoutes from './accounts/accounts.routes.ts';
import apiKeysRoutes from './api-keys/api-keys.routes.ts';
import tenantsRoutes from './tenants/tenants.routes.ts';
import credentialsRoutes from './credentials/credentials.routes.ts';
import webhooksRoutes from './webhooks/webhooks.routes.ts';
import foliosRoutes from './folios/folios.routes.ts';
import dteRoutes from './dte/dte.routes.ts';

export type RouteModule = FastifyPluginAsync<{ ctx: AppContext }>;

export const routeModules: RouteModule[] = [
  accountsRoutes,
  apiKeysRoutes,
  tenantsRoutes,
  credentialsRoutes,
  webhooksRoutes,
  foliosRoutes,
  dteRoutes,
];
