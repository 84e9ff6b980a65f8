/**
 * The benchmarks' load generator, autocannon, in a process of its own (issue 31, "Measure
 * fairly"): run inside the benchmark's process it shares that process's one JavaScript thread with
 * the benchmark's bookkeeping and caps the faster side (the bare Fastify route reached 30–39k req/s
 * in-process against 50k with autocannon's CLI). `runLoad` starts this file as a child with the
 * options as JSON, the child runs autocannon and prints its result as JSON on its last line.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { ROOT } from '../../test/support/processes.ts';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** The parts of autocannon's result the benchmarks read (all of it survives JSON). */
export type LoadResult = Pick<autocannon.Result, 'requests' | 'latency' | 'errors' | 'non2xx' | '2xx' | 'duration'>;

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bench/lib/load.ts'), JSON.stringify(opts)],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`load generator failed: ${err.message}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadResult);
        } catch {
          reject(new Error(`load generator printed no result:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

if (import.meta.main) {
  const opts = JSON.parse(process.argv[2]!) as LoadOptions;
  const r = await autocannon({ ...opts });
  const { requests, latency, errors, non2xx, duration } = r;
  console.log(JSON.stringify({ requests, latency, errors, non2xx, '2xx': r['2xx'], duration }));
}
