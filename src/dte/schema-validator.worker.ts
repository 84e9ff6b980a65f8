import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The schema validator's thread (schema-validator.ts): compiles libxml2's wasm once, then runs
 * each document as a fresh instance of it, with its own memory and in-memory file system, so
 * nothing of one document reaches the next. The schemas come once, as workerData, the documents
 * one per message; they run one after another, so one instance's memory at a time.
 *
 * Only node builtins and xmllint-wasm are loaded here: the thread's start is part of the first
 * validation's cost.
 */
interface SchemaFile {
  fileName: string;
  contents: Uint8Array;
}

export interface ValidationRequest {
  id: number;
  /** The schema the document is checked against; the others are its includes and imports. */
  schema: string;
  document: Uint8Array;
}

export type ValidationAnswer = { id: number } & ({ exitCode: number; stderr: string } | { failure: string });

/** The package's Emscripten factory (xmllint-node.js): one call, one instance running xmllint's main once. */
type Xmllint = (options: {
  inputFiles: SchemaFile[];
  arguments: string[];
  print: (line: string) => void;
  printErr: (line: string) => void;
  onExit: (code: number) => void;
  wasmMemory: object;
  instantiateWasm: (imports: object, done: (instance: object) => void) => object;
}) => Promise<unknown>;

// Node's WebAssembly global, which the project's TypeScript libs (ES and node, no DOM) leave out.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (limits: { initial: number; maximum: number }) => object;
  instantiate(module: object, imports: object): Promise<object>;
};

const require = createRequire(import.meta.url);
// Loading it also registers the package's own worker listener, which ignores every message not
// tagged with its 'xmllint-wasm' key: ours never are.
const xmllint = require('xmllint-wasm/xmllint-node.js') as Xmllint;
const compiled = new WebAssembly.Module(readFileSync(require.resolve('xmllint-wasm/xmllint.wasm')));
const schemaFiles = workerData as SchemaFile[];

// 16 MiB to start, as the package does; envelopes of 2000 DTEs are several MB, and its default
// 32 MiB ceiling is too low for them.
const INITIAL_PAGES = 256;
const MAX_PAGES = 8192;

function run({ schema, document }: ValidationRequest): Promise<{ exitCode: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    let exitCode: number | undefined;
    xmllint({
      inputFiles: [{ fileName: 'document.xml', contents: document }, ...schemaFiles],
      arguments: ['--schema', schema, '--noout', 'document.xml'],
      print: () => {}, // --noout: nothing comes (the package's default would be console.log)
      printErr: (line) => (stderr += line + '\n'),
      onExit: (code) => (exitCode = code),
      wasmMemory: new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: MAX_PAGES }),
      instantiateWasm: (imports, done) => {
        WebAssembly.instantiate(compiled, imports).then(done, reject);
        return {};
      },
    }).then(
      // main has run (and exited) by the time the factory's promise settles.
      () => (exitCode === undefined ? reject(new Error('xmllint ended without an exit code')) : resolve({ exitCode, stderr })),
      reject,
    );
  });
}

let queue = Promise.resolve();
parentPort!.on('message', (request: ValidationRequest) => {
  if (typeof request?.id !== 'number') return;
  queue = queue.then(() =>
    run(request).then(
      (result) => parentPort!.postMessage({ id: request.id, ...result } satisfies ValidationAnswer),
      // A trap in the wasm (or a failed instantiation): an error for this call, the thread goes on.
      (e: unknown) => parentPort!.postMessage({ id: request.id, failure: String(e) } satisfies ValidationAnswer),
    ),
  );
});
