import { validateXML } from 'xmllint-wasm';
import { declaredEncoding } from './xml-decode.ts';
import type { SchemaKind, SchemaValidationResult, SchemaValidator } from './verify/index.ts';

/**
 * In-process XSD validation with libxml2 compiled to WebAssembly (xmllint-wasm): the same engine
 * as the `xmllint` CLI, no native build, no subprocess. The caller supplies the schema files'
 * bytes (the engine reads no files): at least DTE_v10.xsd, EnvioDTE_v10.xsd, EnvioBOLETA_v11.xsd,
 * SiiTypes_v10.xsd and xmldsignature_v10.xsd, keyed by file name, exactly as published (they are
 * ISO-8859-1 and reference each other by name through xs:include / xs:import, which resolve
 * inside the wasm's in-memory file system).
 *
 * Each call runs in a worker thread (~100 ms, dominated by compiling the schemas): meant for the
 * emulator's per-upload check, not for a hot path.
 *
 * libxml2 in the wasm build has no iconv: ISO-8859-1, UTF-8 and ASCII are understood natively,
 * windows-1252 (seen in real SII documents) is not, so such documents are transcoded to UTF-8
 * (with their declaration rewritten) before validation.
 */
export const SCHEMA_FILES: Record<SchemaKind, string> = {
  DTE: 'DTE_v10.xsd',
  EnvioDTE: 'EnvioDTE_v10.xsd',
  EnvioBOLETA: 'EnvioBOLETA_v11.xsd',
  LibroCompraVenta: 'LibroCV_v10.xsd',
  LibroGuia: 'LibroGuia_v10.xsd',
};

export const REQUIRED_SCHEMA_FILES = [
  'DTE_v10.xsd',
  'EnvioDTE_v10.xsd',
  'EnvioBOLETA_v11.xsd',
  'SiiTypes_v10.xsd',
  'xmldsignature_v10.xsd',
];

/** The books' schemas (docs/certification.md, "Books"): optional; without them a book is refused as unvalidatable. */
export const BOOK_SCHEMA_FILES = ['LibroCV_v10.xsd', 'LibroGuia_v10.xsd', 'LceCoCertif_v10.xsd', 'LceCal_v10.xsd', 'LceSiiTypes_v10.xsd'];

function toValidatorInput(xml: Buffer): Uint8Array {
  const enc = declaredEncoding(xml);
  if (enc === 'windows-1252' || enc === 'cp1252') {
    const text = new TextDecoder('windows-1252').decode(xml).replace(/^(\s*<\?xml[^>]*?encoding\s*=\s*["'])[^"']+(["'])/, '$1UTF-8$2');
    return new Uint8Array(Buffer.from(text, 'utf8'));
  }
  return new Uint8Array(xml);
}

export function createSchemaValidator(schemaFiles: Readonly<Record<string, Uint8Array | Buffer>>): SchemaValidator {
  const missing = REQUIRED_SCHEMA_FILES.filter((f) => !schemaFiles[f]);
  if (missing.length > 0) throw new Error(`createSchemaValidator: missing schema files ${missing.join(', ')}`);
  const files = Object.entries(schemaFiles).map(([fileName, contents]) => ({ fileName, contents: new Uint8Array(contents) }));
  return async (xml: Buffer, kind: SchemaKind): Promise<SchemaValidationResult> => {
    const main = SCHEMA_FILES[kind];
    if (!files.some((f) => f.fileName === main)) return { valid: false, errors: [`schema ${main} not loaded`] };
    const result = await validateXML({
      xml: [{ fileName: 'document.xml', contents: toValidatorInput(xml) }],
      schema: files.filter((f) => f.fileName === main),
      preload: files.filter((f) => f.fileName !== main),
      // Envelopes of 2000 DTEs are several MB; the default 32 MiB ceiling is too low for them.
      maxMemoryPages: 8192,
    });
    return { valid: result.valid, errors: result.errors.map((e) => e.message) };
  };
}
