import { generateKeyPairSync, sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestKit, sampleDteInput } from '../test/support/dte/fixtures.ts';
import type { DteInput } from '../src/dte/types.ts';

/**
 * Document engine throughput on one core: factura (33) with 3 lines built, stamped (TED, RSA-512
 * CAF key) and signed (XML-DSig, RSA-2048), versus raw RSA-2048 `crypto.sign('sha1', …)` in the
 * same process. The engine emits canonical XML directly and digests without parsing, so each
 * document should cost little more than its RSA signatures: target ratio ≥ 0.80.
 *
 * Both sides are measured in CPU time of this thread (process.threadCpuUsage), not wall time, in
 * alternating rounds (RSA, documents, RSA, …; BENCH_ENGINE_ROUNDS, default 5), and the ratio is the
 * median of the rounds' ratios: on a shared machine, time the process spends descheduled does not
 * count, and both sides of each ratio see the same conditions.
 */
export interface EngineBenchResult {
  docsPerSecond: number;
  rsaSignsPerSecond: number;
  ratio: number;
  /** CPU time per document and per raw RSA-2048 signature, µs (median rounds). */
  cpuMicros: { document: number; rsa2048: number };
  notes: string;
}

const cpuNow = (): number => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};

/** Operations per CPU-second of this thread, over about `seconds` of CPU time. */
function measure(seconds: number, fn: () => void): number {
  const budget = seconds * 1e6;
  const start = cpuNow();
  let n = 0;
  let used = 0;
  while (used < budget) {
    for (let i = 0; i < 10; i++) fn();
    n += 10;
    used = cpuNow() - start;
  }
  return n / (used / 1e6);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runEngineBench(opts: { seconds?: number; rounds?: number } = {}): Promise<EngineBenchResult> {
  const seconds = opts.seconds ?? 3;
  const rounds = opts.rounds ?? Number(process.env.BENCH_ENGINE_ROUNDS ?? 5);
  const kit = createTestKit();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const payload = Buffer.alloc(600, 0x61); // about the size of a canonical SignedInfo
  const signRsa = () => {
    sign('sha1', payload, rsa);
  };

  const base = sampleDteInput(33, 1, {
    detalle: [
      { nombre: 'Servicio de programación', cantidad: 10, precioUnitario: 35000 },
      { nombre: 'Licencia anual', cantidad: 1.5, precioUnitario: 12990.5 },
      { nombre: 'Soporte "premium" & <24x7>', cantidad: 3, precioUnitario: 9990 },
    ],
  });
  let folio = 1;
  const buildDoc = () => {
    const input: DteInput = { ...base, folio };
    folio = folio >= 1000 ? 1 : folio + 1; // stay inside the test CAF range
    kit.build(input);
  };
  for (let i = 0; i < 200; i++) buildDoc(); // warm-up (JIT, key caches)
  for (let i = 0; i < 200; i++) signRsa();

  const per = seconds / rounds;
  const rsaRates: number[] = [];
  const docRates: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const rsaRate = measure(per / 2, signRsa);
    const docRate = measure(per / 2, buildDoc);
    rsaRates.push(rsaRate);
    docRates.push(docRate);
    ratios.push(docRate / rsaRate);
  }
  const docsPerSecond = median(docRates);
  const rsaSignsPerSecond = median(rsaRates);
  const ratio = median(ratios);
  return {
    docsPerSecond: Math.round(docsPerSecond),
    rsaSignsPerSecond: Math.round(rsaSignsPerSecond),
    ratio: Math.round(ratio * 1000) / 1000,
    cpuMicros: { document: Math.round(1e7 / docsPerSecond) / 10, rsa2048: Math.round(1e7 / rsaSignsPerSecond) / 10 },
    notes:
      `type 33, 3 lines, build+TED(RSA-512)+XML-DSig(RSA-2048), ${rounds} alternating rounds over ${seconds}s of CPU, one thread, ` +
      `node ${process.version}; ratios of the rounds ${ratios.map((x) => x.toFixed(3)).join(' ')}; ` +
      `target ratio >= 0.80 ${ratio >= 0.8 ? 'met' : 'NOT met'}`,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const r = await runEngineBench({ seconds });
  console.log(`documents/s (build + stamp + sign): ${r.docsPerSecond} (${r.cpuMicros.document} µs of CPU each)`);
  console.log(`raw RSA-2048 sha1 signs/s:          ${r.rsaSignsPerSecond} (${r.cpuMicros.rsa2048} µs each)`);
  console.log(`ratio:                              ${r.ratio}`);
  console.log(r.notes);
}
