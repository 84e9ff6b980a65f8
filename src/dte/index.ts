/**
 * Public API of the tax-document engine (pure, I/O-free; the clock and all keys come in as
 * arguments). See each module for the invariants it keeps.
 */
export { DteEngineError, isDteEngineError } from './errors.ts';
export type { TipoDte, DteInput, EmisorInput, ReceptorInput, DetalleInput, ReferenciaInput, SignerInput, SiiKeys } from './types.ts';
export { SUPPORTED_TIPOS_DTE, isSupportedTipoDte } from './types.ts';
export type { DocumentType, DocumentFamily, Accion, TaxCodeGroup } from './catalogue.ts';
export {
  DOCUMENT_TYPES,
  NOTA_DE_CREDITO,
  documentType,
  lookupType,
  typesWhere,
  listCodes,
  describeTypes,
  familyCodes,
  familyOf,
  isBoleta,
  isExport,
  isGuia,
  isLiquidacion,
  envelopeKindFor,
  isCedible,
  cedibleMarkOf,
  cafExpires,
  isAfectoIva,
  isExchanged,
  isReceivable,
  accionesFor,
  creditNoteFor,
  debitNoteFor,
  taxGroupsOf,
  pricesGrossByDefault,
  withholdsIva,
  printedName,
} from './catalogue.ts';

export type { Rut } from './rut.ts';
export {
  parseRut,
  tryParseRut,
  isValidRut,
  computeDv,
  formatRutSii,
  formatRutDotted,
  toSiiRut,
  splitRut,
  RUT_SII,
  RUT_ANONYMOUS,
  RUT_FOREIGN,
} from './rut.ts';

export type { AmountLine, AmountMismatch, Totals, AmountFamily } from './amounts.ts';
export { computeLineAmount, computeTotals, checkAmounts, amountFamily, lineIsExempt, IVA_RATE_PERCENT } from './amounts.ts';

export {
  MAX_LENGTH,
  MAX_DETALLE_LINES,
  MAX_DETALLE_LINES_BOLETA,
  MAX_REFERENCIAS,
  MAX_DTE_PER_ENVIO_DTE,
  MAX_DTE_PER_ENVIO_BOLETA,
} from './limits.ts';
export { cleanText, isLatin1 } from './text-policy.ts';
export { siiTimestamp, siiDate, SII_TIME_ZONE, isValidDate, daysBetween } from './dates.ts';

export type { Caf, CafVerification, IssueCafInput } from './caf.ts';
export {
  parseCaf,
  parseCafBlock,
  parseCafFile,
  verifyCaf,
  issueCaf,
  siiKeyFromCertificate,
  cafVencimiento,
  isCafExpired,
  CAF_EXPIRING_TYPES,
} from './caf.ts';

export type { Ted, TedInput } from './ted.ts';
export { buildTed } from './ted.ts';

export type { PrintableDte, PrintableLine, PrintableReferencia } from './printable.ts';
export { readPrintable, tedBytesOf } from './printable.ts';

export type { PreparedDte, StoredDocument } from './prepare.ts';
export { prepareDte } from './prepare.ts';
export type { DocumentInput, NormalizedDocument } from './normalize.ts';
export type { IssueDteOptions, BuildDteOptions, BuiltDte } from './dte-xml.ts';
export { issueDte, issueDteAsync, buildDte, documentIdFor, NS_SII } from './dte-xml.ts';
export { strategyFor } from './strategies/index.ts';
export type { DocumentStrategy } from './strategies/index.ts';

export type { PreparedSigner } from './xmldsig.ts';
export { prepareSigner, assertSignerValidAt, signAsync } from './xmldsig.ts';
export { rutFromCertificate, OID_SII_RUT } from './certificate.ts';

export type { BuildEnvelopeInput, BuiltEnvelope, EnvelopeKind } from './envelope.ts';
export { buildEnvelope } from './envelope.ts';
export type { TaxCode } from './tax-codes.ts';
export { TAX_CODES } from './tax-codes.ts';

export type {
  BookEntry,
  BookHeader,
  BuiltBook,
  IvaTreatment,
  TypeTotals,
  GuiaEntry,
  LibroGuiaInput,
  LibroGuiaTotals,
  LibroCompraVentaInput,
} from './books/index.ts';
export {
  buildLibroCompraVenta,
  libroCompraVentaTotals,
  buildLibroGuia,
  guiaTotals,
  creditoUsoComun,
  CODIGO_RETENCION_TOTAL,
  TPO_OPER_VENTA,
} from './books/index.ts';

export type {
  VerifyOptions,
  VerificationIssue,
  DteVerification,
  EnvelopeVerification,
  SchemaValidator,
  SchemaKind,
  SchemaValidationResult,
  BookVerification,
} from './verify/index.ts';
export { verifyDte, verifyDteSync, verifyEnvelope, verifyEnvelopeSync, verifyBook } from './verify/index.ts';
export { createSchemaValidator, REQUIRED_SCHEMA_FILES, BOOK_SCHEMA_FILES, SCHEMA_FILES } from './schema-validator.ts';
export { SII_SCHEMA_DIR } from './schema-dir.ts';
export {
  envelopeParts,
  buildRespuestaEnvio,
  ESTADO_RECEP_ENV,
  ESTADO_RECEP_DTE,
  RESPUESTA_TIPOS_DTE,
  type EnvelopeParts,
  type RecepcionDteInput,
  type RespuestaEnvioInput,
  type BuiltRespuesta,
  type EstadoRecepEnv,
  type EstadoRecepDte,
} from './exchange.ts';
export {
  buildResultadoDte,
  buildEnvioRecibos,
  buildEnvioRecibosOf,
  buildResultadosDte,
  ESTADO_DTE,
  DECLARACION_RECIBO,
  type AnsweredDocument,
  type ResultadoDteInput,
  type EnvioRecibosInput,
  type EstadoDte,
} from './exchange-answers.ts';

export type { SelfSignedCertificate, SelfSignedCertificateOptions } from './self-signed-certificate.ts';
export { createSelfSignedCertificate } from './self-signed-certificate.ts';

export type { SeedVerification } from './seed-signature.ts';
export { signSeed, verifySignedSeed, SEED_ERRORS } from './seed-signature.ts';

export { aduanaCode, comparable, type AduanaTable } from './aduana/aduana.ts';
