/**
 * The emulated SII's findings: `SECTION-LEVEL-NUMBER` codes (level 3 rejects the document, 2 is a
 * reparo [REF §10]) with the SII's description where it is known. Sources: [C] the provider's
 * recorded answers (docs/emulator.md), [REF] `docs/sources.md` §10, [F] the format
 * document SII-FORMATO v2.2 (2019-11-15). A code marked "ours" follows the SII's style where its
 * real number is not public (listed in docs/emulator.md, "Decisions where the SII is not documented").
 */
export const GLOSAS: Record<string, string> = {
  /** [C "Envio con boletas rechazadas": seccion DTE, nivel 3, codigo 100]. */
  'DTE-3-100': 'DTE Repetido (TipDoc, Folio, FchEmis, IVA, MntTot, RUTRecep)',
  /** [REF §10], the SII's text. */
  'DTE-3-101': 'Folio para este Tipo de documento ya fue recibido en el SII',
  'DTE-3-500': 'Documento mal formado',
  /** [REF §10]. */
  'DTE-3-505': 'Firma DTE Incorrecta',
  'DTE-3-506': 'Certificado digital no vigente al firmar el DTE',
  /** [REF §10]. */
  'DTE-3-601': 'Folio anulado',
  'CAF-3-516': 'Firma del CAF Incorrecta',
  /** [REF §10]. */
  'CAF-3-517': 'CAF Vencido',
  'CAF-3-518': 'Folio fuera del rango del CAF',
  'CAF-3-519': 'CAF no corresponde al emisor o al tipo de documento',
  'TED-3-510': 'Firma del Timbre Electrónico Incorrecta',
  'TED-3-511': 'Datos del Timbre no coinciden con el documento',
  /** [REF §10] FchEmis earlier than the CAF's authorization. */
  'HED-3-305': 'Fecha de emisión anterior a la autorización del CAF',
  /** Ours. RUTRecep "guión y dígito verificador" [F §A field 50]; the módulo 11 digit [REF §8]. */
  'HED-3-310': 'RUT Receptor con dígito verificador incorrecto',
  /** Ours. 66.666.666-6 is the boletas' anonymous consumer [REF §2.2]; every other document names its receptor [F §A field 50]. */
  'HED-3-311': 'RUT 66.666.666-6 sólo corresponde a boletas',
  /** Ours. GiroRecep, DirRecep, CmnaRecep are "1" for 33, 34, 43, 46, 52 [F §A fields 57, 60, 61]. */
  'HED-3-312': 'Faltan datos obligatorios del Receptor',
  /** Ours. IndTraslado is "1" for guías [F §A field 7]. */
  'HED-3-313': 'Guía de despacho sin Indicador de Traslado',
  /** Ours. "En doctos. Exportac. 55.555.555-5" [F §A field 50]. */
  'HED-3-314': 'RUT Receptor de documento de exportación debe ser 55.555.555-5',
  /** [REF §10] (the SII's code for a missing export field; the text is ours). */
  'HED-2-804': 'Falta dato obligatorio del documento de exportación',
  /** [C "Envio con boletas aceptado con reparo": seccion HED, nivel 2, codigo 260], the SII's text. */
  'HED-2-260': 'REPARO- Monto Total No Cuadra con Parciales',
  /** [REF §7, §10] "(HED-2-302) Tasa no corresponde"; the text is ours. */
  'HED-2-302': 'Monto de IVA no corresponde a la tasa',
  'HED-2-303': 'Montos neto, exento o no facturable no corresponden al detalle',
  /** Ours. TasaImp "según las tasas válidas" [F §A field 116; §4]. */
  'HED-2-306': 'Tasa de impuesto adicional o retención no corresponde al código',
  /** Ours. MontoImp = "Tasa * (Suma de líneas de detalle con código…)" [F §A field 117]. */
  'HED-2-307': 'Monto de impuesto adicional o retención no corresponde al detalle',
  /** Ours. IVANoRet = "IVA - IVA Retenido por producto" [F §A field 118]. */
  'HED-2-308': 'IVA no retenido no corresponde a IVA menos IVA retenido',
  /** Ours. ValComNeto/ValComExe/ValComIVA are the sums of the Comisiones lines [F §A fields 121-123; §F]. */
  'HED-2-309': 'Comisiones y otros cargos no corresponden al detalle',
  /** Ours. Exports inform MntTotOtrMnda "en pesos chilenos" at TpoCambio [F §A fields 130, 138]. */
  'HED-2-320': 'Monto en otra moneda no corresponde al tipo de cambio',
  /** [REF §10] a referenced electronic document never received. */
  'REF-3-750': 'Documento referenciado no ha sido recibido por el SII',
  /** [REF §10] a document that requires a reference has none (the text is ours). */
  'REF-3-415': 'Documento requiere referencia a un documento tributario',
  /** [REF §10] a note's reference without CodRef (the text is ours). */
  'REF-3-758': 'Referencia de nota sin Código de Referencia',
  /** Ours. "CASOS a) b) y c) DEBEN TENER UN ÚNICO DOCUMENTO DE REFERENCIA" [F §E field 8]. */
  'REF-3-759': 'Nota que anula o corrige texto debe tener un único documento de referencia',
  /** Ours. MontoItem "debe ser cero cuando … es una Nota de Crédito tipo fe de erratas" [F §B field 38]. */
  'REF-3-761': 'Nota que corrige texto con montos distintos de cero',
  /** Ours. FchRef is the referenced document's date [F §E field 7]: it cannot come after this one. */
  'REF-3-762': 'Fecha de referencia posterior a la emisión o a la recepción',
  /** [REF §10], the SII's text. */
  'REF-2-780': 'Anulación presenta diff. de monto con doc. referenciado',
  /** [REF §7] the SII's boleta REST example, codigo 100. */
  'DET-2-100': 'Valor Detalle Distinto a Precio * Cantidad',
};

/** A finding: `SECTION-LEVEL-NUMBER` code, the SII's description and the particular detail. */
export type Finding = { codigo: string; descripcion: string; detalle: string | null };

export const finding = (codigo: string, detail?: string): Finding => {
  const glosa = GLOSAS[codigo];
  return glosa ? { codigo, descripcion: glosa, detalle: detail ?? null } : { codigo, descripcion: detail ?? codigo, detalle: null };
};

export const levelOf = (codigo: string): number => Number(/^[A-Z]+-(\d)-/.exec(codigo)?.[1] ?? '3');
