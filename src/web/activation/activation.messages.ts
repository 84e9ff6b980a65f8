/**
 * What each service error code means to the customer on the hosted page (es-CL), and which field
 * it belongs to. Codes not listed fall back to a generic message.
 */
export type Field = 'apiKey' | 'file' | 'password';

export const MESSAGES: Record<string, { field: Field; text: string }> = {
  provider_api_key_invalid: {
    field: 'apiKey',
    text: 'El proveedor rechazó esta clave API. Revísela (cópiela sin espacios) y vuelva a intentarlo.',
  },
  provider_api_key_expired: { field: 'apiKey', text: 'Esta clave API está vencida. Obtenga una nueva en su cuenta de SimpleAPI.' },
  provider_quota_exhausted: {
    field: 'apiKey',
    text: 'La cuota de esta clave API en SimpleAPI está agotada. Revise su plan con el proveedor.',
  },
  provider_unavailable: {
    field: 'apiKey',
    text: 'No pudimos comunicarnos con el proveedor para verificar la clave. No se guardó nada; intente nuevamente en unos minutos.',
  },
  provider_timeout: {
    field: 'apiKey',
    text: 'El proveedor tardó demasiado en responder. No se guardó nada; intente nuevamente en unos minutos.',
  },
  certificate_password_invalid: {
    field: 'password',
    text: 'La contraseña no corresponde a este certificado. Revísela e intente de nuevo.',
  },
  certificate_unreadable: { field: 'file', text: 'No pudimos leer el archivo. Debe ser un certificado digital en formato .pfx o .p12.' },
  certificate_key_missing: {
    field: 'file',
    text: 'El archivo no incluye la clave privada. Exporte el certificado nuevamente marcando la opción de incluir la clave privada.',
  },
  certificate_key_mismatch: { field: 'file', text: 'La clave privada del archivo no corresponde a su certificado.' },
  certificate_key_unsupported: { field: 'file', text: 'El certificado usa un tipo de clave que el SII no acepta (se requiere RSA).' },
  certificate_expired: { field: 'file', text: 'El certificado está vencido. Use un certificado vigente.' },
  certificate_not_yet_valid: { field: 'file', text: 'El certificado todavía no está vigente.' },
  certificate_rut_missing: {
    field: 'file',
    text: 'El certificado no contiene el RUT del titular, por lo que el SII no lo acepta. Use su certificado digital para el SII.',
  },
  file_too_large: { field: 'file', text: 'El archivo es demasiado grande para ser un certificado.' },
  body_too_large: { field: 'file', text: 'El archivo es demasiado grande para ser un certificado.' },
  invalid_multipart: { field: 'file', text: 'No recibimos el archivo correctamente. Selecciónelo de nuevo.' },
  busy: { field: 'file', text: 'Estamos revisando muchos certificados en este momento. Intente de nuevo en unos segundos.' },
  certificate_check_timeout: {
    field: 'file',
    text: 'Revisar el certificado está tardando más de lo normal. Intente de nuevo en unos segundos.',
  },
};
