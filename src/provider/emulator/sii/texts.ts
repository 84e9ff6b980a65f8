/**
 * The SII face's texts, each with its source (docs/emulator.md, "The SII's own protocols").
 *
 * DTEUpload STATUS (envio-automatico-dte-upload OI2003_UPDTE_MDE 1.5 §2.1, "Los tipos de Status";
 * docs/sources.md §1.3; 99 from live use, ruraldte `engine/sii-legacy-upload.ts`). The words of
 * each DETAIL/ERROR are ours except where marked.
 */
export const UPLOAD_STATUS = {
  ok: '0',
  /** "El Sender no tiene permiso para enviar". */
  noPermission: '1',
  /** "Error en tamaño del archivo (muy grande o muy chico)". */
  size: '2',
  /** "Archivo cortado (tamaño <> al parámetro size)". */
  cut: '3',
  /** "No está autenticado". */
  notAuthenticated: '5',
  /** "Empresa no autorizada a enviar archivos". */
  company: '6',
  /** "Esquema Invalido". */
  schema: '7',
  /** "Error en firma" (§1.3: 8 signature error); used for books (books.ts), envelopes show RFR in QueryEstUp. */
  signature: '8',
  /** Already received (live use, §1.3 (ii)). */
  duplicate: '99',
} as const;

export const UPLOAD_ERROR = {
  noPermission: (sender: string, holder: string) => `El RUT ${sender} no corresponde al usuario autenticado (${holder})`,
  empty: 'Archivo vacio',
  tooBig: 'Archivo excede el tamano maximo',
  /** The parser's words for a chunked body cut at about 4 KB (docs/sources.md §1.5, ruraldte, seen live). */
  cut: 'LPX-00007: unexpected end-of-file encountered',
  company: (rut: string) => `Empresa ${rut} no autorizada a enviar archivos`,
  notEnvelope: 'SCH-00001: Invalid Schema Name',
  /** Recorded from live use (§1.3 (ii)): "Archivo ya fue enviado 2 veces con Trackid 251550580. Debe esperar 900 segundos". */
  duplicate: (sends: number, trackId: number, wait: number) =>
    `Archivo ya fue enviado ${sends} veces con Trackid ${trackId}. Debe esperar ${wait} segundos`,
} as const;

/** How long the same file is answered STATUS 99 ("Debe esperar 900 segundos", §1.3 (ii)). */
export const DUPLICATE_WINDOW_S = 900;

/**
 * QueryEstUp / QueryEstDte token errors (docs/sources.md §1.4, LibreDTE
 * `CheckXmlDocumentSentStatusResponse`): 001 cookie/token inactive, 002 token inactive, 003 token
 * does not exist. Our use: 001 no token given, 002 expired, 003 unknown. Glosas ours.
 */
export const TOKEN_ERRORS = {
  missing: { estado: '001', glosa: 'Cookie o Token no activo' },
  expired: { estado: '002', glosa: 'Token no activo' },
  unknown: { estado: '003', glosa: 'Token no existe' },
} as const;

/** A query whose parameters cannot be read (ours: the SII's codes for it are not published). */
export const BAD_PARAMETERS = { estado: '-3', glosa: 'Error en parametros de entrada' } as const;

/**
 * A book's review as QueryEstUp answers it (docs/sources.md §1.4: books report LSO/LOK accepted
 * and LRH mismatched totals, not EPR; from live use). The glosas are ours: no source records them.
 */
export const BOOK_ESTADO = { ok: 'LOK', totals: 'LRH' } as const;
export const BOOK_GLOSA = { ok: 'Libro Aceptado', totals: 'Libro Rechazado, totales no cuadran con el detalle' } as const;

/** A reused FolioNotificacion (docs/sources.md §1.4, from live use); answered as DTEUpload STATUS 6 (our choice). */
export const BOOK_NOT_REGISTERED = 'ENVIO NO REGISTRADO PARA LA EMPRESA';
