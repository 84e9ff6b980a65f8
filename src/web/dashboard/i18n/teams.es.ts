/**
 * The texts of teams (issue 29): members, roles, invitations and the "your role does not allow
 * this" page. Kept apart from es.ts like the actions; teams.en.ts must have the same keys.
 */
export const teamsEs = {
  nav: 'Miembros',
  roles: {
    owner: 'Propietario',
    admin: 'Administrador',
    developer: 'Desarrollador',
    operator: 'Operador',
    read_only: 'Solo lectura',
  },
  roleHints: {
    owner: 'Todo, incluida la propiedad de la cuenta.',
    admin: 'Todo menos la propiedad de la cuenta.',
    developer: 'Claves API, webhooks y sus registros.',
    operator: 'Empresas, credenciales, folios y documentos.',
    read_only: 'Ve todo (nunca un secreto), no cambia nada.',
  },
  forbiddenTitle: 'Tu rol no lo permite',
  forbidden: (role: string, needed: string) => `Tu rol (${role}) no permite esta acción. Se necesita el rol ${needed}.`,
  or: ' o ',
  members: {
    title: 'Miembros',
    intro: 'Las personas que entran a este panel en nombre de la cuenta, y lo que cada rol puede hacer.',
    name: 'Nombre',
    email: 'Correo',
    role: 'Rol',
    since: 'Desde',
    you: '(tú)',
    actions: 'Acciones',
    changeRole: 'Cambiar rol',
    save: 'Guardar',
    remove: 'Quitar',
    leave: 'Salir de la cuenta',
    removeTitle: (who: string) => `Quitar a ${who}`,
    removeIntro: (who: string) => `${who} dejará de poder entrar a este panel y sus sesiones abiertas terminan ahora.`,
    leaveTitle: 'Salir de la cuenta',
    leaveIntro: 'Dejarás de poder entrar a esta cuenta y tu sesión termina ahora.',
    roleChanged: (who: string, role: string) => `${who} ahora es ${role}.`,
    removed: (who: string) => `${who} ya no es miembro.`,
    rolesTitle: 'Qué puede hacer cada rol',
  },
  invitations: {
    title: 'Invitaciones pendientes',
    none: 'No hay invitaciones pendientes.',
    invite: 'Invitar',
    inviteTitle: 'Invitar a un miembro',
    email: 'Correo de la persona',
    role: 'Rol',
    expires: 'Vence',
    revoke: 'Anular',
    revoked: (email: string) => `La invitación a ${email} se anuló.`,
    sent: (email: string) => `Enviamos la invitación a ${email}. El enlace vence en 7 días y sirve una vez.`,
    linkIntro: (email: string) =>
      `Sin servidor de correo configurado (SMTP_URL), entrega tú este enlace a ${email}. Vence en 7 días, sirve una vez y solo se muestra ahora.`,
    linkGone: 'El enlace de la invitación ya se mostró. Si no lo copiaste, invita otra vez a la misma dirección: el enlace anterior deja de servir.',
    acceptTitle: 'Aceptar la invitación',
    acceptIntro: (account: string, role: string, email: string) =>
      `Te invitaron a la cuenta ${account} con el rol ${role}. Elige tu nombre y una contraseña para entrar como ${email}.`,
    yourName: 'Tu nombre',
    password: 'Contraseña',
    passwordHint: (min: number) => `Al menos ${min} caracteres.`,
    accept: 'Aceptar y entrar',
    invalidTitle: 'Invitación no válida',
    invalid: 'Este enlace de invitación no es válido o ya se usó. Pide a quien te invitó que te envíe otro.',
    expiredTitle: 'Invitación vencida',
    expired: 'Este enlace de invitación venció. Pide a quien te invitó que te envíe otro.',
    loginInstead: 'Iniciar sesión',
  },
  mail: {
    subject: (account: string) => `Te invitaron a ${account} en el Panel DTE`,
    text: (inviter: string, account: string, role: string, link: string) =>
      `Hola:\n\n${inviter} te invitó a la cuenta ${account} del Panel DTE con el rol ${role}.\n\nPara aceptar, abre este enlace (vence en 7 días y sirve una sola vez):\n\n${link}\n\nSi no esperabas esta invitación, ignora este correo.\n`,
  },
  errorCodes: {
    role_forbidden: 'Tu rol no permite esta acción.',
    last_owner: 'La cuenta necesita al menos un propietario: haz propietario a otro miembro antes.',
    member_exists: 'Esa persona ya es miembro de esta cuenta.',
    invalid_role: 'Elige uno de los roles de la lista.',
    invitation_invalid: 'Este enlace de invitación no es válido o ya se usó.',
    invitation_expired: 'Este enlace de invitación venció.',
  },
};

export type TeamsMessages = typeof teamsEs;
