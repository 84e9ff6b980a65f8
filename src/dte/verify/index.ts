/**
 * Verification of foreign or stored documents the way the SII checks them (README.md,
 * "Verification"), one file per level:
 *  - envelope.ts: signature over SetDTE *in context* (inherits the root's namespaces), carátula;
 *  - document.ts: each DTE's substring parsed *as its own document* (the SII splits envelopes),
 *    signature over Documento standalone (signature.ts);
 *  - ted.ts: TED FRMT over the flattened ISO-8859-1 DD with the CAF key in the DD; CAF FRMA with
 *    the SII key of its IDK; folio within the CAF range; CAF expiry.
 * Verification keys come from the X509Certificate (the SII's own example has a KeyValue that does
 * not match its certificate, and verifies with the certificate).
 *
 * Codes: RSC, RFR, RCT (envelope states), DTE-3-505 and CAF-3-517 are the SII's own; the others
 * follow its `SECTION-LEVEL-NUMBER` style but are this engine's choice:
 *   DTE-3-500 malformed document, TED-3-510 bad FRMT, TED-3-511 TED data ≠ document,
 *   CAF-3-516 CAF signature invalid or IDK unknown, CAF-3-518 folio outside the CAF range,
 *   CAF-3-519 CAF for another issuer or document type.
 */
export type {
  VerificationIssue,
  SchemaKind,
  SchemaValidationResult,
  SchemaValidator,
  VerifyOptions,
  DteVerification,
  EnvelopeVerification,
  BookVerification,
} from './types.ts';
export { verifyDte, verifyDteSync } from './document.ts';
export { verifyEnvelope, verifyEnvelopeSync } from './envelope.ts';
export { verifyBook, verifyBookSync } from './book.ts';
