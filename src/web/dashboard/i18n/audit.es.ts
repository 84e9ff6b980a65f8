/** The texts of the audit log page (docs/audit.md); audit.en.ts must have the same keys. */
export const auditEs = {
  nav: 'Auditoría',
  title: 'Registro de auditoría',
  intro: 'Quién cambió qué, cuándo y desde dónde: miembros y claves API (por su prefijo). Nunca se guarda un secreto.',
  when: 'Fecha',
  actor: 'Quién',
  action: 'Acción',
  target: 'Sobre',
  from: 'Desde',
  details: 'Detalles',
  mode: 'Modo',
  live: 'producción',
  test: 'prueba',
  since: 'Desde el',
  until: 'Hasta el',
  actorHint: 'Correo de un miembro o prefijo de una clave',
  actionHint: 'Una acción (tenant.created) o un prefijo (tenant.)',
  none: 'No hay eventos con estos filtros.',
  exportCsv: 'Exportar CSV',
  actorType: { member: 'miembro', api_key: 'clave API', system: 'sistema' } as Record<string, string>,
  retention: (days: number) => `Los eventos se guardan ${days} días.`,
  errorCodes: {
    invalid_audit_filter: 'Revise los filtros: la acción es como tenant.created o tenant., y las fechas son días válidos.',
  } as Record<string, string>,
};

export type AuditMessages = typeof auditEs;
