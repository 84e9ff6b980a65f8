import type { JobHandler } from '../../jobs/queue.ts';
import { BOOK_POLL_QUEUE, type BookSend } from './books/book-send.ts';

/** The certification module's background work: following the SII's review of a sent book. */
export function certificationJobHandlers(bookSends: BookSend): Record<string, JobHandler> {
  return { [BOOK_POLL_QUEUE]: (payload, job) => bookSends.runPoll(payload, job) };
}
