import type { JobHandler } from '../../jobs/queue.ts';
import { DELIVERY_QUEUE, type ExchangeService } from './exchange.service.ts';

/** The exchange module's background work: one durable job per delivery. */
export function exchangeJobHandlers(exchange: ExchangeService): Record<string, JobHandler> {
  return { [DELIVERY_QUEUE]: (payload, job) => exchange.runDelivery(payload, job) };
}
