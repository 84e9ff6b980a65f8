/**
 * Maximum lengths (characters) of the XML fields the engine writes, from DTE_v10.xsd /
 * SiiTypes_v10.xsd / EnvioBOLETA_v11.xsd. The API validates its inputs against these; the engine
 * checks again (see text-policy.ts for which fields are truncated and which are rejected).
 */
export const MAX_LENGTH = {
  razonSocial: 100, // RznSoc / RznSocRecep / RznSocEmisor (RznSocLargaType)
  giroEmisor: 80, // GiroEmis / GiroEmisor
  giroReceptor: 40, // GiroRecep
  direccion: 70, // DirOrigen / DirRecep
  comuna: 20, // CmnaOrigen / CmnaRecep (ComunaType)
  ciudad: 20, // CiudadOrigen / CiudadRecep (CiudadType)
  telefono: 20, // Telefono (element restriction; FonoType allows 40)
  correo: 80, // CorreoEmisor / CorreoRecep (MailType)
  contacto: 80, // Contacto
  nombreItem: 80, // NmbItem
  descripcionItem: 1000, // DscItem
  unidad: 4, // UnmdItem
  tipoDocRef: 3, // TpoDocRef
  folioRef: 18, // FolioRef (FolioRType)
  razonRef: 90, // RazonRef
  tedRsr: 40, // TED/DD/RSR
  tedIt1: 40, // TED/DD/IT1
  cafRs: 40, // CAF/DA/RS
  tipoCodigo: 10, // CdgItem/TpoCodigo
  valorCodigo: 35, // CdgItem/VlrCodigo
  sucursal: 20, // Emisor/Sucursal
  vendedor: 60, // CdgVendedor
  unidadSii: 40, // printed only ("S.I.I. - …"), never signed: the API's bound
  glosaDr: 45, // DscRcgGlobal/GlosaDR
  glosaPago: 40, // MntPagos/GlosaPagos
  terminosPago: 100, // TermPagoGlosa
  patente: 8, // Transporte/Patente
  nombreChofer: 30, // Chofer/NombreChofer
  nacionalidad: 3, // Extranjero/Nacionalidad
  numeroId: 20, // Extranjero/NumId
  glosaComision: 60, // Comisiones/Glosa
  aduanaTexto: 40, // NombreTransp, NomCiaTransp
  aduanaId: 20, // Booking, Operador
  marcas: 255, // TipoBultos/Marcas
  idContainer: 25, // TipoBultos/IdContainer
  sello: 20, // TipoBultos/Sello
  emisorSello: 70, // TipoBultos/EmisorSello
} as const;

export const MAX_PAGOS = 30; // MntPagos maxOccurs
export const MAX_DESCUENTOS_GLOBALES = 20; // DscRcgGlobal maxOccurs
export const MAX_COMISIONES = 20; // Comisiones maxOccurs

export const MAX_DETALLE_LINES = 60; // DTE_v10 Detalle maxOccurs
export const MAX_DETALLE_LINES_BOLETA = 1000; // BOLETADefType Detalle maxOccurs
export const MAX_REFERENCIAS = 40;
export const MAX_DTE_PER_ENVIO_DTE = 2000;
export const MAX_DTE_PER_ENVIO_BOLETA = 500;
/** QtyItem / PrcItem (Dec12_6Type): 12 integer digits, 6 decimals, > 0. */
export const MAX_INTEGER_DIGITS_QTY_PRICE = 12;
export const MAX_FRACTION_DIGITS_QTY_PRICE = 6;
