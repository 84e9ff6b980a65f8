import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Test-only: where the SII's published material lives in this repository, so no test reads
 * anything outside it. The documents are in `test/fixtures/sii/` (its README.md says where each
 * comes from), the schemas beside the engine (`src/dte/schemas/`), the SII's CAF keys beside the
 * provider (`src/provider/sii-certs/`).
 */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export const SII_FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'sii');
export const SII_SCHEMAS_DIR = path.join(REPO_ROOT, 'src', 'dte', 'schemas');
export const SII_CERTS_DIR = path.join(REPO_ROOT, 'src', 'provider', 'sii-certs');

/** The SII's official example EnvioDTE (a factura 33, folio 60, CAF of IDK 100). */
export const OFFICIAL_ENVIO = path.join(SII_FIXTURES_DIR, 'envio', 'F60T33-ejemplo-oficial-SII.xml');
/** The CAF of that example, with the SII's published test key. */
export const OFFICIAL_CAF = path.join(SII_FIXTURES_DIR, 'caf', 'SII-ejemplo-CAF-97975000-5-T33-F1-200.reconstructed.xml');
/** Real documents as issued (CAFs of IDK 300). */
export const REAL_DTE_DIR = path.join(SII_FIXTURES_DIR, 'dte');
