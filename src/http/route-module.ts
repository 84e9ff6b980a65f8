import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** A resource group's routes: registered by src/http/routes.ts with the composition root's context. */
export type RouteModule = FastifyPluginAsync<{ ctx: AppContext }>;
