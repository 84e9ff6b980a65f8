/**
 * The words SimpleAPI and the SII answer with, each with its source (protocol.ts explains the
 * abbreviations: [C] the provider's Postman collection with recorded answers, [SDK] the official
 * SDK, [D9] docs/decisions.md §9, [REF] `docs/sources.md`). Texts marked "ours" are choices where
 * the sources are silent (docs/emulator.md, "Where the sources are silent").
 */

/** Error bodies of the servicios host, `{"Mensaje": …}` [C "Folios / Get Folios" description]. */
export const MENSAJE = {
  invalidKey: 'API KEY Incorrecta. No es posible continuar',
  planExhausted: 'Límite de la suscripción alcanzado',
  missingFiles: 'Faltan archivos en form-data',
  tooMany: 'Cantidad solicitada supera lo permitido',
  /** ours */
  badInput: 'El Json de entrada no es válido',
  /** ours */
  badTipo: 'Tipo de documento no válido',
  /** ours */
  badRange: 'Rango de folios no válido',
} as const;

/** An expired key, both hosts: 401 `{"error": …}` [D9]. */
export const EXPIRED_KEY_ERROR = 'Apikey vencida. No es posible continuar';

/** The `unavailable` sandbox key: 503 text/plain (ours: the sources record no outage). */
export const UNAVAILABLE_TEXT = 'Servicio no disponible';

/** The DTE host's input errors, 400 text/plain (ours, in the style of TIPO_INCORRECTO [C]). */
export const API_TEXT = {
  missingFiles: 'Faltan archivos en form-data',
  badInput: 'El Json de entrada no es válido',
} as const;

/**
 * Envelope states and their glosas (getEstUp GLOSA). EPR's is recorded ("Envio Procesado" [C
 * "Consultar Estado Envio", "Consulta Exitosa"]); the others are the collection's list of
 * "Posibles códigos de respuesta" [C], REC is ours.
 */
export const ENVELOPE_GLOSA: Record<string, string> = {
  REC: 'Envio Recibido',
  SOK: 'Schema Valido',
  CRT: 'Carátula OK',
  FOK: 'Firma de Envío Validada',
  PDR: 'Envío en Proceso',
  EPR: 'Envio Procesado',
  RSC: 'Rechazado por Error en Schema',
  RFR: 'Rechazado por Error en Firma',
  RCT: 'Rechazado por Error en Carátula',
};

/**
 * The SII's parser reads an upload line by line and refuses the whole file when a line is longer
 * than 4,090 characters: "CHR-00002: Line too long (4090)" (`docs/sources.md` §1.3 (i)
 * and §1.5, reported from live use by independent implementations; a one-line file was also seen
 * answered "SCH-00001 Invalid Schema Name"). Where it shows is not documented: we answer it as a
 * schema rejection (RSC) of the envelope, as the SII's other parser errors (docs/emulator.md).
 */
export const MAX_UPLOAD_LINE = 4090;
export const lineTooLong = (line: number, length: number) =>
  `CHR-00002: Line too long (${MAX_UPLOAD_LINE}) (línea ${line}: ${length} caracteres)`;

/** [C "Usuario sin permiso en empresa"]: the SII's ESTADO 106. */
export const NO_PERMISSION = { estado: '106', glosa: 'Usuario no tiene permiso en empresa' } as const;

/**
 * An unknown trackId (ours): the SII's -11 with ERR_CODE 1, whose glosa the SDK resolves as
 * "El envío no es de la Empresa, faltan parámetros de entrada." [SDK EstadoDTETrackIdResult.cs].
 */
export const UNKNOWN_TRACK = { estado: '-11', errCode: '1', glosa: 'El envío no es de la Empresa, faltan parámetros de entrada.' } as const;

/** [C "Error interno SII"]: `Certificado` missing from the input (a .NET null reference). */
export const INTERNAL_ERROR = {
  estado: '007',
  glosaXml: 'Error Interno',
  glosa: 'Object reference not set to an instance of an object.',
} as const;

/** [C "Usuario sin permiso en el SII"]: the boleta server's failed query. Unknown trackIds answer the same (ours). */
export const BOLETA_NO_PERMISSION = 'Error de Permiso';

/**
 * consulta/dte states: ESTADO, GLOSA_ESTADO, ERR_CODE, GLOSA_ERR. DOK [C "Consulta Exitosa"] and FAN
 * [C "DTE no recibido"] are recorded; ERR_CODE numbers per [REF §9.5]; FAU's GLOSA_ERR is the
 * boleta server's recorded `descripcion` [C "Boleta no recibida"]; the other glosas are ours.
 */
export const DTE_STATES = {
  DOK: { glosaEstado: 'DTE Recibido', errCode: 0, glosaErr: 'Documento Recibido por el SII. Datos Coinciden con los Registrados' },
  DNK: { glosaEstado: 'DTE Recibido', errCode: 1, glosaErr: 'Documento Recibido por el SII pero Datos NO Coinciden con los registrados' },
  FAU: { glosaEstado: 'DTE No Recibido', errCode: 3, glosaErr: 'Documento No Recibido por el SII' },
  FNA: { glosaEstado: 'DTE No Recibido', errCode: 4, glosaErr: 'Documento No Autorizado' },
  FAN: { glosaEstado: 'DTE No Recibido', errCode: 5, glosaErr: 'Documento Anulado' },
} as const;
export type DteState = keyof typeof DTE_STATES;

/** Per-document states of the boleta server's `detalles` [C "Envio con boletas rechazadas", "… aceptado con reparo"]. */
export const DOCUMENT_DESCRIPCION = { RCH: 'DTE Rechazado', RPR: 'DTE Aceptado con Reparos' } as const;

/**
 * Document names as the SII writes them in the annulment answer: FACTURA ELECTRONICA is recorded
 * [C "Folios / Anulacion", "Exito"]; the others are the collection's TIPO_DTE list [C "Get Folios"]
 * in the same style (capitals, no accents).
 */
export const DOCUMENT_NAMES: Record<number, string> = {
  33: 'FACTURA ELECTRONICA',
  34: 'FACTURA NO AFECTA O EXENTA ELECTRONICA',
  39: 'BOLETA ELECTRONICA',
  41: 'BOLETA NO AFECTA O EXENTA ELECTRONICA',
  43: 'LIQUIDACION FACTURA ELECTRONICA',
  46: 'FACTURA DE COMPRA ELECTRONICA',
  52: 'GUIA DE DESPACHO ELECTRONICA',
  56: 'NOTA DE DEBITO ELECTRONICA',
  61: 'NOTA DE CREDITO ELECTRONICA',
  110: 'FACTURA DE EXPORTACION ELECTRONICA',
  111: 'NOTA DE DEBITO DE EXPORTACION ELECTRONICA',
  112: 'NOTA DE CREDITO DE EXPORTACION ELECTRONICA',
};

/** The SII's annulment page, as SimpleAPI relays it [C "Folios / Anulacion", 200 and 400]. */
const ANNUL_PAGE = 'En esta página podrá solicitar la anulación de folios..\r\n';

export const annulText = {
  /** [C "Exito"]; the empty "Sr(a). ," is recorded as is. */
  ok: (a: {
    fecha: string;
    hora: string;
    tipoDte: number;
    desde: number;
    hasta: number;
    razonSocial: string;
    rutEmpresa: string;
    rutCert: string;
  }) =>
    `En Santiago, con fecha ${a.fecha} ${a.hora}, el Servicio de Impuestos Internos ha autorizado la anulación del documento ` +
    `${DOCUMENT_NAMES[a.tipoDte] ?? `DOCUMENTO TIPO ${a.tipoDte}`}, con la numeración desde ${a.desde} hasta ${a.hasta}. ` +
    `Presentada por el contribuyente ${a.razonSocial}, R.U.T.N° ${a.rutEmpresa} , y enviada a través de Internet por el Sr(a). , ` +
    `Cédula de Identidad N° ${a.rutCert}, autorizado por el contribuyente emisor a este efecto.`,
  /** [C "Error de anulación", first entry]. */
  already: (a: { fecha: string; desde: number; hasta: number; por: string }) =>
    `${ANNUL_PAGE}El rango de folios que desea anular ya ha sido efectuado anteriormente, por lo que no podrá efectuar esta transacción nuevamente.\r\n` +
    `Fecha Anulación\r\n${a.fecha}\r\nFolio Inicial Anulado\r\n${a.desde}\r\nFolio Final Anulado\r\n${a.hasta}\r\nAnulado por\r\n${a.por}\r\n`,
  /** [C "Error de anulación", second and third entries]. */
  received: () =>
    `${ANNUL_PAGE}Del rango de folios que desea anular, al menos un folio ha sido recepcionado por el SII, por lo que no podrá efectuar esta transacción.\r\n` +
    '\r\nSi necesita más información comuníquese con la Mesa de ayuda SII Internet.\r\n',
  /** ours: a range no CAF of the company covers. */
  notGranted: () => `${ANNUL_PAGE}El rango de folios que desea anular no corresponde a folios autorizados al contribuyente.\r\n`,
};

/**
 * The SII's upload refusals (DTEUpload STATUS [REF §9.3]) that SimpleAPI relays as a failed send
 * (HTTP 400, trackId -999999 [D9]); glosas ours.
 */
export const UPLOAD_REFUSED = {
  empty: { status: '2', glosa: 'Error en Tamaño del Archivo', error: 'El archivo enviado está vacío' },
  notEnvelope: { status: '7', glosa: 'Esquema Invalido', error: 'El archivo no es un EnvioDTE ni un EnvioBOLETA' },
} as const;

/**
 * The registro de aceptación o reclamo's answers, `codResp` → `descResp`
 * (docs/sources.md [RR], "Parámetros de salida"). 0 and 9 are recorded
 * as SimpleAPI relays them, without accents [C "Aceptar - Rechazar en SII"]; the others are the
 * document's texts written the same way (ours), `XXX` replaced by the claim recorded before.
 */
export const REGISTRO_TEXT = {
  0: 'Accion Completada OK',
  1: 'Rut Emisor Erroneo',
  2: 'Numero de Folio Erroneo',
  3: 'Tipo de documento no corresponde',
  4: 'Accion invalida',
  6: (claim: string) => `No se puede acusar recibo de mercaderia de DTE previamente reclamado por ${claim}`,
  7: 'Evento registrado previamente',
  8: 'Pasados 8 dias despues de la recepcion no es posible registrar reclamos o eventos',
  9: 'No existen registros de acuerdo a los parametros ingresados',
  11: 'No se puede reclamar DTE previamente aceptado',
  12: (claim: string) => `No se puede dar por aceptado DTE previamente rechazado por ${claim}`,
  13: 'No se puede reclamar DTE previamente registrado como que acuso recibo mercaderia',
} as const;
