/**
 * The texts of test mode in the dashboard (issue 29; docs/dashboard.md "Test mode"): the strip on
 * every page, the switch in the navigation and the roles table's test-mode column. testmode.en.ts
 * must have the same keys.
 */
export const testModeEs = {
  /** The strip at the top of every page in test mode. */
  banner: 'Modo de prueba: estás viendo datos de prueba; nada llega al SII.',
  bannerLive: 'Volver a los datos reales',
  /** The switch in the navigation, with the mode it shows now. */
  switchLabel: 'Datos de prueba',
  switchOn: 'Ver datos de prueba',
  switchOff: 'Ver datos reales',
  /** The API keys page says which keys it lists and what a new one will be. */
  keysTest: 'Estas son las claves de prueba (sk_test_…): sus empresas usan el emulador integrado y nada llega al SII.',
  keysLive: 'Estas son las claves reales (sk_live_…). Las claves de prueba están en el modo de prueba.',
  /** The API keys page's first line in test mode. */
  keysHelp: 'Usa una clave en la cabecera Authorization: Bearer sk_test_… de cada llamada a la API.',
  /** Where a test company's documents go, whatever its provider says (the API side: emulator). */
  provider: 'Emulador integrado (modo de prueba: nada llega al SII)',
  providerHint: 'En modo de prueba los documentos van siempre al emulador integrado, sea cual sea esta opción.',
  /** The members page: the roles table has one column per role, and a mark for "in test mode only". */
  onlyInTest: 'solo en modo de prueba',
  policyNote:
    'El modo de prueba amplía lo que puede hacer cada rol: quien desarrolla puede, con datos de prueba, lo mismo que quien opera con datos reales.',
  /** The 403 page when the member's role may do it in test mode. */
  forbiddenTryTest: 'Tu rol sí puede hacerlo con datos de prueba: cambia al modo de prueba.',
};

export type TestModeMessages = typeof testModeEs;
