import fs from 'node:fs';
import path from 'node:path';
import { BOOK_SCHEMA_FILES, createSchemaValidator, REQUIRED_SCHEMA_FILES, SII_SCHEMA_DIR, type SchemaValidator } from '../../dte/index.ts';

/**
 * The SII schemas uploads and received documents are validated with: the engine's copy
 * (src/dte/schemas/README.md), or another folder holding the same files (EMULATOR_SCHEMA_DIR).
 */
export const BUNDLED_SCHEMA_DIR = SII_SCHEMA_DIR;

const cache = new Map<string, SchemaValidator>();

export function schemaValidatorFrom(dir: string = BUNDLED_SCHEMA_DIR): SchemaValidator {
  let v = cache.get(dir);
  if (!v) {
    const files = Object.fromEntries(REQUIRED_SCHEMA_FILES.map((f) => [f, fs.readFileSync(path.join(dir, f))]));
    // The books' schemas when the folder has them (a book is refused as RSC otherwise).
    for (const f of BOOK_SCHEMA_FILES) if (fs.existsSync(path.join(dir, f))) files[f] = fs.readFileSync(path.join(dir, f));
    v = createSchemaValidator(files);
    cache.set(dir, v);
  }
  return v;
}
