/**
 * Memory of opening the stores the way the server does (main database + secrets store), for the
 * embedded default: `DATA_DIR=… KEYS_DIR=… node --no-wasm-tier-up --no-wasm-dynamic-tiering
 * --max-semi-space-size=8 --heap-growing-percent=50 bench/open-memory.ts` (npm start's flags; a new DATA_DIR measures the first start, an existing one a restart).
 * Prints this process's resident memory and its peak (Linux VmRSS / VmHWM) at each step.
 */
import fs from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { openStores } from '../src/stores.ts';

const memory = () => {
  const s = fs.readFileSync('/proc/self/status', 'utf8');
  const mb = (k: string) => Math.round(Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)![1]) / 1024);
  return `RSS ${mb('VmRSS')} MiB, peak ${mb('VmHWM')} MiB`;
};
console.log(`before: ${memory()}`);
const t = performance.now();
const stores = await openStores(loadConfig(process.env));
console.log(`opened in ${Math.round(performance.now() - t)} ms: ${memory()}`);
await stores.db.query('select count(*) from accounts');
await stores.secretsDb.query('select count(*) from secrets');
console.log(`after a query on each: ${memory()}`);
await stores.close();
