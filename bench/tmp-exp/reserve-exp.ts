import pg from 'pg';
import fs from 'node:fs';
import { foliosHarness } from '/work/wt-create-perf/test/support/folios.ts';
const app = 'exp-' + process.pid;
process.env.TEST_DATABASE_URL = `postgres://postgres@127.0.0.1:5432/test?application_name=${app}`;
const cpu = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 1e4; };
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' }); await admin.connect();
const pgCpu = async () => { const r = await admin.query('select pid from pg_stat_activity where application_name = $1', [app]); return r.rows.reduce((s, x) => s + cpu(x.pid), 0); };
const h = await foliosHarness('postgres');
for (let i = 0; i < Number(process.env.RANGES ?? 20); i++) await h.grant(33, 1000);
const N = 2000;
for (const conc of [1, 16]) {
  const c0 = await pgCpu(); const p0 = process.cpuUsage(); const t0 = performance.now();
  let left = N / 2;
  await Promise.all(Array.from({ length: conc }, async () => { while (left-- > 0) await h.folios.reserve(h.accountId, h.tenant.id, 33); }));
  const dt = performance.now() - t0; const c1 = await pgCpu(); const p = process.cpuUsage(p0);
  console.log(`conc ${conc}: ${(N / 2 / (dt / 1000)).toFixed(0)}/s, pg cpu ${((c1 - c0) / (N / 2)).toFixed(0)} µs/reserve, node cpu ${((p.user + p.system) / (N / 2)).toFixed(0)} µs`);
}
let captured: [string, readonly unknown[]] | undefined;
const q = h.db.query.bind(h.db);
(h.db as any).query = (t: string, p?: readonly unknown[]) => { if (t.includes('with pick')) captured = [t, p ?? []]; return q(t, p); };
await h.folios.reserve(h.accountId, h.tenant.id, 33);
(h.db as any).query = q;
await h.db.transaction(async (tx) => { const r = await tx.query<any>('explain (analyze, buffers, timing) ' + captured![0], captured![1]); console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n')); throw new Error('rollback'); }).catch(() => {});
await h.close(); await admin.end();
