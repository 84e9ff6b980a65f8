import { generateKeyPairSync, sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestKit, sampleDteInput } from '../test/support/dte/fixtures.ts';
import type { DteInput } from '../src/dte/types.ts';

/**
 * Document engine throughput on one core: factura (33) with 3 lines built, stamped (TED, RSA-512
 * CAF key) and signed (XML-DSig, RSA-2048), versus raw RSA-2048 `crypto.sign('sha1', …)` in the
 * same process. The engine emits canonical XML directly and digests without parsing, so each
 * document should cost little more than its one RSA-2048 signature: target ratio ≥ 0.25.
 */
export interface EngineBenchResult {
  docsPerSecond: number;
  rsaSignsPerSecond: number;
  ratio: number;
  notes: string;
}

function measure(seconds: number, fn: () => void): number {
  for (let i = 0; i < 20; i++) fn(); // warm-up (JIT, key caches)
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  let n = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 10; i++) fn();
    n += 10;
  }
  return n / ((performance.now() - start) / 1000);
}

export async function runEngineBench(opts: { seconds?: number } = {}): Promise<EngineBenchResult> {
  const seconds = opts.seconds ?? 3;
  const kit = createTestKit();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const payload = Buffer.alloc(600, 0x61); // about the size of a canonical SignedInfo
  const rsaSignsPerSecond = measure(seconds, () => {
    sign('sha1', payload, rsa);
  });

  const base = sampleDteInput(33, 1, {
    detalle: [
      { nombre: 'Servicio de programación', cantidad: 10, precioUnitario: 35000 },
      { nombre: 'Licencia anual', cantidad: 1.5, precioUnitario: 12990.5 },
      { nombre: 'Soporte "premium" & <24x7>', cantidad: 3, precioUnitario: 9990 },
    ],
  });
  let folio = 1;
  const docsPerSecond = measure(seconds, () => {
    const input: DteInput = { ...base, folio };
    folio = folio >= 1000 ? 1 : folio + 1; // stay inside the test CAF range
    kit.build(input);
  });
  const ratio = docsPerSecond / rsaSignsPerSecond;
  return {
    docsPerSecond: Math.round(docsPerSecond),
    rsaSignsPerSecond: Math.round(rsaSignsPerSecond),
    ratio: Math.round(ratio * 1000) / 1000,
    notes:
      `type 33, 3 lines, build+TED(RSA-512)+XML-DSig(RSA-2048), ${seconds}s per measurement, one thread, node ${process.version}; ` +
      `target ratio >= 0.25 ${ratio >= 0.25 ? 'met' : 'NOT met'}`,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const r = await runEngineBench({ seconds });
  console.log(`documents/s (build + stamp + sign): ${r.docsPerSecond}`);
  console.log(`raw RSA-2048 sha1 signs/s:          ${r.rsaSignsPerSecond}`);
  console.log(`ratio:                              ${r.ratio}`);
  console.log(r.notes);
}
