import type { JobHandler } from '../../jobs/queue.ts';
import { POLL_QUEUE, UPLOAD_QUEUE, type SendService } from './dte.send.ts';

/** The DTE module's background work: uploads and status polling (durable jobs). */
export function dteJobHandlers(send: SendService): Record<string, JobHandler> {
  return {
    [UPLOAD_QUEUE]: (payload, job) => send.runUpload(payload, job),
    [POLL_QUEUE]: (payload, job) => send.runPoll(payload, job),
  };
}
