/** One route module per resource group of the contract, each from its module's public surface, registered in this order. */
import { accountsRoutes } from '../modules/accounts/index.ts';
import { apiKeysRoutes } from '../modules/api-keys/index.ts';
import { tenantsRoutes } from '../modules/tenants/index.ts';
import { credentialsRoutes } from '../modules/credentials/index.ts';
import { webhooksRoutes } from '../modules/webhooks/index.ts';
import { foliosRoutes } from '../modules/folios/index.ts';
import { dteDeliveriesRoutes, dteRoutes } from '../modules/dte/index.ts';
import { receivedDeliveriesRoutes, receivedRoutes } from '../modules/received/index.ts';
import {
  certificationBooksRoutes,
  certificationExchangeRoutes,
  certificationRoutes,
  certificationSimulationRoutes,
} from '../modules/certification/index.ts';
import { auditRoutes } from '../modules/audit/index.ts';
import type { RouteModule } from './route-module.ts';

export const routeModules: RouteModule[] = [
  accountsRoutes,
  apiKeysRoutes,
  tenantsRoutes,
  credentialsRoutes,
  webhooksRoutes,
  foliosRoutes,
  dteRoutes,
  receivedRoutes,
  // The deliveries of documents and of answers (the exchange outbox's records), served by the
  // modules that own them; after the received routes, as the contract's document lists them.
  dteDeliveriesRoutes,
  receivedDeliveriesRoutes,
  certificationRoutes,
  certificationBooksRoutes,
  certificationExchangeRoutes,
  certificationSimulationRoutes,
  auditRoutes,
];
