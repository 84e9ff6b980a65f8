/**
 * The SII's CAF-signing keys by number (IDK), kept apart from the keys themselves
 * (sii-keys.ts) so that config.ts can name them without loading the document engine.
 * The SII signs certification CAFs with its key 100 (maullin) and production CAFs with 300 (palena).
 */
export const SII_CAF_IDK = Object.freeze({ certificacion: 100, produccion: 300 } as const);

/**
 * The SII environment whose CAFs the key `idk` signs, or null for a key that is not one of the
 * SII's (the emulator's 666, or one added with SII_CAF_KEYS): such CAFs are not tied to an
 * environment (docs/folios.md, "Uploading a CAF").
 */
export function siiAmbienteOfIdk(idk: number): 'certificacion' | 'produccion' | null {
  if (idk === SII_CAF_IDK.certificacion) return 'certificacion';
  if (idk === SII_CAF_IDK.produccion) return 'produccion';
  return null;
}
