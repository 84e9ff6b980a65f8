import { createRequire, syncBuiltinESMExports } from 'node:module';
const require = createRequire(import.meta.url);
const c = require('node:crypto');
const realSign = c.sign;
const fake = Buffer.alloc(256, 1);
if (process.env.STUB) { c.sign = () => fake; syncBuiltinESMExports(); }
const { createTestKit, sampleDteInput } = await import('../../test/support/dte/fixtures.ts');
const kit = createTestKit();
const base = sampleDteInput(33, 1, { detalle: [
      { nombre: 'Servicio de programación', cantidad: 10, precioUnitario: 35000 },
      { nombre: 'Licencia anual', cantidad: 1.5, precioUnitario: 12990.5 },
      { nombre: 'Soporte "premium" & <24x7>', cantidad: 3, precioUnitario: 9990 },
    ]});
const N = Number(process.env.N ?? 20000);
for (let i = 0; i < 2000; i++) kit.build({ ...base, folio: (i % 1000) + 1 });
const results: number[] = [];
for (let r = 0; r < 5; r++) {
  const t = process.cpuUsage();
  for (let i = 0; i < N; i++) kit.build({ ...base, folio: (i % 1000) + 1 });
  const d = process.cpuUsage(t); results.push((d.user + d.system) / N);
}
results.sort((a, b) => a - b);
console.log('µs per doc (median of 5):', results[2]!.toFixed(2), 'min', results[0]!.toFixed(2));
