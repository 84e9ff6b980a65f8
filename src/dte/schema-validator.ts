import { Worker } from 'node:worker_threads';
import { declaredEncoding } from './xml-decode.ts';
import type { SchemaKind, SchemaValidationResult, SchemaValidator } from './verify/index.ts';
import type { ValidationAnswer, ValidationRequest } from './schema-validator.worker.ts';

/**
 * In-process XSD validation with libxml2 compiled to WebAssembly (xmllint-wasm): the same engine
 * as the `xmllint` CLI, no native build, no subprocess. The caller supplies the schema files'
 * bytes (the engine reads no files): at least DTE_v10.xsd, EnvioDTE_v10.xsd, EnvioBOLETA_v11.xsd,
 * SiiTypes_v10.xsd and xmldsignature_v10.xsd, keyed by file name, exactly as published (they are
 * ISO-8859-1 and reference each other by name through xs:include / xs:import, which resolve
 * inside the wasm's in-memory file system).
 *
 * Calls run in one worker thread per validator (schema-validator.worker.ts), started on the first
 * call and kept: the wasm is compiled once there, and each document gets a fresh instance of it.
 * A call still parses and compiles the schemas (most of its ~20 ms; the first one also starts the
 * thread, ~250 ms): meant for the emulator's per-upload check, not for a hot path.
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

/** The messages of xmllint's stderr, as xmllint-wasm's parseErrors words them: the part after `file:line:`. */
function errorMessages(stderr: string): string[] {
  // The last line is "document.xml fails to validate", then the final newline.
  return stderr
    .split('\n')
    .slice(0, -2)
    .map((line) => {
      const [fileName, lineNumber, ...rest] = line.split(':');
      return fileName && lineNumber && rest.length > 0
        ? { message: rest.join(':').trim(), located: true }
        : { message: line, located: false };
    })
    .filter((e) => e.located || !e.message.trim().endsWith(' validates'))
    .map((e) => e.message);
}

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (a: ValidationAnswer) => void; reject: (e: Error) => void }>;
}

/**
 * The validator's thread, started by the first call and again by the next call after it died.
 * It only keeps the process alive while a call waits for it, so tests and CLIs exit on their own.
 */
function schemaThread(files: { fileName: string; contents: Uint8Array }[]) {
  let current: Thread | undefined;
  let nextId = 0;

  const start = (): Thread => {
    const worker = new Worker(new URL('./schema-validator.worker.ts', import.meta.url), { workerData: files });
    const thread: Thread = { worker, pending: new Map() };
    worker.unref();
    // Every call waiting on a thread that failed or ended fails; the next call starts another.
    const fail = (error: Error) => {
      if (current === thread) current = undefined;
      for (const { reject } of thread.pending.values()) reject(error);
      thread.pending.clear();
    };
    worker.on('message', (answer: ValidationAnswer) => {
      const call = thread.pending.get(answer?.id);
      if (!call) return;
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      call.resolve(answer);
    });
    worker.on('error', (e) => fail(new Error(`schema validation thread failed: ${e.message}`, { cause: e })));
    worker.on('exit', (code) => fail(new Error(`schema validation thread ended (exit code ${code})`)));
    return thread;
  };

  return {
    run: (schema: string, document: Uint8Array) =>
      new Promise<ValidationAnswer>((resolve, reject) => {
        const thread = (current ??= start());
        const id = ++nextId;
        thread.pending.set(id, { resolve, reject });
        thread.worker.ref();
        thread.worker.postMessage({ id, schema, document } satisfies ValidationRequest, [document.buffer as ArrayBuffer]);
      }),
    /** Ends the thread (calls waiting on it fail); the next call starts another. */
    close: async () => {
      const thread = current;
      current = undefined;
      await thread?.worker.terminate();
    },
  };
}

export function createSchemaValidator(
  schemaFiles: Readonly<Record<string, Uint8Array | Buffer>>,
): SchemaValidator & { close(): Promise<void> } {
  const missing = REQUIRED_SCHEMA_FILES.filter((f) => !schemaFiles[f]);
  if (missing.length > 0) throw new Error(`createSchemaValidator: missing schema files ${missing.join(', ')}`);
  const files = Object.entries(schemaFiles).map(([fileName, contents]) => ({ fileName, contents: new Uint8Array(contents) }));
  const thread = schemaThread(files);
  const validate = async (xml: Buffer, kind: SchemaKind): Promise<SchemaValidationResult> => {
    const main = SCHEMA_FILES[kind];
    if (!files.some((f) => f.fileName === main)) return { valid: false, errors: [`schema ${main} not loaded`] };
    // toValidatorInput's bytes are a copy of their own: their buffer moves to the thread.
    const answer = await thread.run(main, toValidatorInput(xml));
    if ('failure' in answer) throw new Error(`schema validation failed: ${answer.failure}`);
    // xmllint's exit codes: 0 valid, 3 or 4 invalid; anything else is not a verdict on the document.
    if (answer.exitCode === 0) return { valid: true, errors: [] };
    if (answer.exitCode === 3 || answer.exitCode === 4) return { valid: false, errors: errorMessages(answer.stderr) };
    throw Object.assign(new Error(answer.stderr), { code: answer.exitCode });
  };
  return Object.assign(validate, { close: thread.close });
}
