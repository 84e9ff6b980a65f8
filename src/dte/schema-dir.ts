import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the SII's published XSDs live in this repository (`src/dte/schemas/`, see its README.md):
 * the document and envelope schemas the engine's validator is given, the answers' schemas
 * (RespuestaEnvioDTE, EnvioRecibos) and the books' (LibroCV, LibroGuia, LibroBOLETA). Only the
 * folder's path: the engine reads no files, its callers load the bytes they need from here.
 */
export const SII_SCHEMA_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schemas');
