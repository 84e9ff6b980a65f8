/**
 * Certification (docs/certification.md): the SII's test set in, per tenant. Owns the
 * `certification_sets` table; the parser (set/) is pure and has no I/O.
 */
export { createCertificationService } from './certification.service.ts';
export type { CertificationService, CertificationDeps } from './certification.service.ts';
export type { CertificationSet } from './certification.views.ts';
export { SET_MAX_BYTES } from './certification.schemas.ts';
export { default as certificationRoutes } from './certification.routes.ts';
export { createCertificationBooks, BOOK_KINDS } from './books/books.service.ts';
export type { CertificationBooks, CertificationBooksDeps, CertificationBook, BookKind } from './books/books.service.ts';
export { default as certificationBooksRoutes } from './books/books.routes.ts';
export { parseSet } from './set/set.parse.ts';
export { SetParseError } from './set/set.errors.ts';
export type { ParsedSet, SetCase, SetSection } from './set/set.types.ts';
export { createBookSend, BOOK_POLL_QUEUE } from './books/book-send.ts';
export { certificationJobHandlers } from './certification.jobs.ts';
export type { BookSend, BookEnvio } from './books/book-send.ts';
export { createCertificationExchange } from './certification.exchange.ts';
export type { ExchangeDeps as CertificationExchangeDeps } from './certification.exchange.ts';
export { default as certificationExchangeRoutes } from './certification.exchange.routes.ts';
export { createCertificationSimulation } from './certification.simulation.ts';
export type { CertificationSimulationService, SimulationDeps as CertificationSimulationDeps } from './certification.simulation.ts';
export { default as certificationSimulationRoutes } from './certification.simulation.routes.ts';
