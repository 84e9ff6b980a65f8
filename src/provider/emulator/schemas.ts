import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SchemaValidator } from '../../dte/index.ts';
import { createSchemaValidator, REQUIRED_SCHEMA_FILES } from '../../dte/schema-validator.ts';

/** The SII schemas the emulator validates uploads with (xsd/README.md), or another folder of them. */
export const BUNDLED_SCHEMA_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'xsd');

const cache = new Map<string, SchemaValidator>();

export function schemaValidatorFrom(dir: string = BUNDLED_SCHEMA_DIR): SchemaValidator {
  let v = cache.get(dir);
  if (!v) {
    const files = Object.fromEntries(REQUIRED_SCHEMA_FILES.map((f) => [f, fs.readFileSync(path.join(dir, f))]));
    v = createSchemaValidator(files);
    cache.set(dir, v);
  }
  return v;
}
