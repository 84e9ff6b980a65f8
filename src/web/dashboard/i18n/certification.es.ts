/**
 * The texts of the certification page (issue 28; docs/dashboard.md "Certification"): the SII's
 * stages in order, what the service did at each, what the SII answered. certification.en.ts must
 * have exactly the same keys.
 */
export const certificationEs = {
  link: 'Certificación SII',
  title: (company: string) => `Certificación de ${company}`,
  intro:
    'El SII autoriza a emitir desde un sistema propio solo después de certificar a la empresa, por tipo de documento. Estas son las etapas en orden: las que hace el servicio tienen aquí su botón; las que se hacen a mano en el sitio del SII dicen qué hacer.',
  notCertification:
    'Esta empresa está en el ambiente de producción: la certificación se hace con una empresa en el ambiente de certificación.',
  readOnly: 'Tu rol solo permite ver esta página.',
  stageState: {
    done: 'Hecho',
    current: 'Siguiente paso',
    todo: 'Pendiente',
    failed: 'Con problemas',
    manual: 'En el sitio del SII',
    notYet: 'Por la API',
  } as Record<string, string>,
  stepOf: (n: number, total: number) => `Etapa ${n} de ${total}`,
  byHand: 'Se hace a mano en el sitio del SII (maullin.sii.cl), con el certificado del representante legal.',
  notYetHint:
    'La API hace esta etapa (POST …/certification/simulation, POST …/certification/exchange, GET …/certification/sets/{setId}/printed-samples); este panel aún no tiene un botón para ella. Consulta la guía «Certificar una empresa» (docs/guides/08-certification.md) y la referencia de la API.',
  apiReference: 'Referencia de la API',
  stages: {
    postulacion: {
      title: 'Postulación',
      text: 'El representante legal postula a la empresa como emisor electrónico en el sitio de certificación del SII y nombra al usuario administrador de DTE. Se hace una sola vez.',
    },
    set: {
      title: 'Set de pruebas',
      text: 'Descarga el set de pruebas del sitio del SII (un archivo .txt por número de atención) y súbelo aquí tal cual: el servicio lee cada sección y cada caso.',
      file: 'Archivo del set de pruebas (.txt)',
      fileHint: (kb: number) => `Tal como lo entrega el SII (ISO-8859-1 o UTF-8), hasta ${kb} KB. El mismo set dos veces es el mismo set.`,
      submit: 'Subir el set',
      uploaded: (cases: number, sections: number) => `Set leído: ${cases} casos en ${sections} secciones.`,
      section: 'Sección',
      attention: 'N° de atención',
      cases: 'Casos',
      other: 'Otro set',
      another: 'Subir otro set',
    },
    documents: {
      title: 'Documentos del set',
      text: 'El servicio crea el documento de cada caso, con la referencia SET y «CASO n-k» que exige el SII. Necesita folios de certificación de cada tipo del set.',
      fecha: 'Fecha de emisión',
      fechaHint: 'AAAA-MM-DD; si la dejas vacía, hoy. El SII rechaza documentos con más de 3 días de atraso.',
      submit: 'Crear los documentos',
      progress: (made: number, cases: number) => `${made} de ${cases} casos con su documento.`,
      made: (n: number) => (n === 0 ? 'Los documentos ya estaban creados.' : `Documentos creados: ${n}.`),
      foliosLink: 'Solicitar folios',
    },
    send: {
      title: 'Envío al SII',
      text: 'Los documentos van en los sobres que pide el SII (básico, exenta y guías juntos; cada exportación en uno propio) a través del proveedor de la empresa.',
      submit: 'Enviar al SII',
      progress: (sent: number, total: number) => `${sent} de ${total} documentos enviados.`,
      done: (n: number) => (n === 0 ? 'No había documentos por enviar.' : `Sobres enviados: ${n}.`),
    },
    verdicts: {
      title: 'Respuesta del SII a los documentos',
      text: 'El servicio consulta el estado de cada envío hasta que el SII da su veredicto. Esta tabla muestra lo que contestó por cada caso.',
      summary: (accepted: number, total: number, rejected: number) =>
        `${accepted} de ${total} aceptados${rejected ? `, ${rejected} rechazados` : ''}.`,
      caseCol: 'Caso',
      typeCol: 'Documento',
      folioCol: 'Folio',
      statusCol: 'Estado',
      siiCol: 'Respuesta del SII',
      notMade: 'Sin documento',
    },
    books: {
      title: 'Libros',
      text: 'El libro de compras sale del set; el de ventas y el de guías, de los documentos creados. Cada libro se firma y, si la empresa envía directo al SII, se envía desde aquí; si no, descarga el XML y súbelo en el sitio del SII.',
      kind: { ventas: 'Libro de ventas', compras: 'Libro de compras', guias: 'Libro de guías' } as Record<string, string>,
      kindCol: 'Libro',
      builtCol: 'Armado',
      sentCol: 'Envío',
      siiCol: 'Respuesta del SII',
      ready: 'Listo',
      waiting: (cases: string) => `Faltan los documentos de: ${cases}`,
      notSent: 'Sin enviar',
      xml: 'Descargar XML',
      folioNotificacion: 'Folio de notificación',
      folioHint: 'Si lo dejas vacío, el número de atención de la sección del libro. Un folio ya usado lo rechaza el SII: usa uno nuevo.',
      facturaFolio: 'Folio de la factura que facturó la guía',
      facturaHint: 'Solo el libro de guías: la factura del caso que el set dice facturado.',
      send: (kind: string) => `Enviar ${kind}`,
      sent: (kind: string, trackId: string) =>
        `${kind} enviado al SII (track ID ${trackId}). Su revisión aparece aquí cuando el SII la termina.`,
      manualUpload:
        'El proveedor de esta empresa no recibe libros: descarga el XML de cada libro y súbelo en el sitio de certificación del SII.',
      pending: 'En revisión',
      accepted: 'Aceptado',
      rejected: 'Rechazado',
    },
    avance: {
      title: 'Declarar avance',
      text: 'Cuando el SII aceptó los documentos y los libros, declara el avance del set en el sitio de certificación del SII (con los track ID de esta página). El veredicto final del set llega por correo (SOK o SRH): que un envío diga aceptado no es aún la aprobación.',
    },
    simulacion: {
      title: 'Simulación',
      text: 'Entre 20 y 100 documentos de la operación real de la empresa, sin referencia al set, enviados sin reparos; luego se declara el avance.',
    },
    intercambio: {
      title: 'Intercambio',
      text: 'El SII entrega un envío dirigido a la empresa; se responden tres XML firmados: recepción del envío, resultado comercial y recibo de mercaderías (Ley 19.983).',
    },
    muestras: {
      title: 'Muestras impresas',
      text: 'El PDF de cada documento del set, con su copia tributaria y la cedible donde el tipo la tiene, subido en el sitio del SII.',
    },
    declaracion: {
      title: 'Declaración de cumplimiento',
      text: 'El representante legal firma la declaración de cumplimiento en el sitio del SII. Luego el SII autoriza a la empresa: su número y fecha de resolución van en los documentos desde entonces.',
    },
  },
  errorCodes: {
    certification_set_unreadable:
      'El archivo no se puede leer como set de pruebas del SII. Revisa que sea el .txt que entrega el SII, sin cambios.',
    certification_folios_missing:
      'A la empresa le faltan folios de certificación para el set: no se gastó ninguno. Solicita folios de los tipos que faltan y vuelve a intentarlo.',
    certification_documents_in_progress: 'Otra solicitud está creando los documentos de este set. Espera un momento y recarga.',
    certification_documents_missing: 'Primero hay que crear los documentos del set.',
    certification_tenant_not_in_certification: 'La empresa debe estar en el ambiente de certificación.',
    certification_book_upload_unsupported: 'El proveedor de esta empresa no recibe libros: descarga el XML y súbelo en el sitio del SII.',
    certification_book_send_in_progress: 'Este libro se está enviando en otra solicitud. Espera un momento y recarga.',
    certification_book_not_in_set: 'Este set no pide ese libro.',
  } as Record<string, string>,
};

export type CertificationMessages = typeof certificationEs;
