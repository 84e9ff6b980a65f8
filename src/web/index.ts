/** Server-rendered pages (no /api/v1 prefix, no API key): their shared assets, then each page. */
import type { RouteModule } from '../http/route-module.ts';
import { assetRoutes } from './shared/assets.ts';
import activationRoutes from './activation/activation.routes.ts';
import dashboardRoutes from './dashboard/index.ts';

export const webModules: RouteModule[] = [assetRoutes, activationRoutes, dashboardRoutes];
