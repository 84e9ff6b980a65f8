import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../test/support/db.ts';
import { openTestDb, type TestDb } from '../../test/support/db.ts';
import { manualClock } from '../lib/clock.ts';
import { createEnvelope, DecryptionError, generateKeySpec, parseKeyring } from './envelope.ts';
import { replaceKeyring } from './keyring-files.ts';
import { createDbSecretStore, SECRETS_MIGRATIONS } from './secret-store.ts';

describeEachDb('secrets store', (backend) => {
  let sdb: TestDb;
  const keyring = parseKeyring(generateKeySpec('s1'));
  const envelope = createEnvelope(keyring);
  const clock = manualClock();
  let store: ReturnType<typeof createDbSecretStore>;
  beforeAll(async () => {
    sdb = await openTestDb(backend, { migrationsDir: SECRETS_MIGRATIONS });
    store = createDbSecretStore({ db: sdb.db, envelope, clock });
  });
  afterAll(() => sdb.close());

  it('stores values encrypted and gives them back only to their owner', async () => {
    await store.put('tenant/a/pw/1', 'hunter2-canary', 'owner:a');
    expect(await store.getString('tenant/a/pw/1', 'owner:a')).toBe('hunter2-canary');
    const raw = (await sdb.db.query<{ ciphertext: Buffer; key_id: string }>('select ciphertext, key_id from secrets')).rows[0]!;
    expect(raw.ciphertext.includes(Buffer.from('hunter2-canary'))).toBe(false);
    expect(raw.key_id).toBe('s1');
    await expect(store.get('tenant/a/pw/1', 'owner:b')).rejects.toBeInstanceOf(DecryptionError);
    expect(await store.get('tenant/a/pw/missing', 'owner:a')).toBeUndefined();
  });

  it('writes each ref once and refuses malformed refs', async () => {
    await store.put('tenant/a/pw/2', 'v', 'owner:a');
    await expect(store.put('tenant/a/pw/2', 'other', 'owner:a')).rejects.toThrow(/already exists/);
    await expect(store.put('../etc', 'v', 'o')).rejects.toThrow(/must be/);
  });

  it('a ciphertext moved to another ref, even with its aad, fails closed', async () => {
    await store.put('tenant/x/pw/1', 'secret-x', 'owner:x');
    await store.put('tenant/y/pw/1', 'secret-y', 'owner:x');
    await sdb.db.query(
      "update secrets set ciphertext = (select ciphertext from secrets where ref = 'tenant/x/pw/1') where ref = 'tenant/y/pw/1'",
    );
    await expect(store.get('tenant/y/pw/1', 'owner:x')).rejects.toBeInstanceOf(DecryptionError);
  });

  it('lists, deletes, and re-wraps everything under a new key', async () => {
    await store.put('tenant/r/pw/1', 'rotate-me', 'owner:r');
    expect((await store.list({ prefix: 'tenant/r/' })).map((s) => s.ref)).toEqual(['tenant/r/pw/1']);
    const before = await store.keyUsage();
    expect(Object.keys(before)).toEqual(['s1']);
    // Rotation: new key first, old key kept for reading.
    const spec = `${generateKeySpec('s2')},s1:${keyring.byId.get('s1')!.toString('base64')}`;
    replaceKeyring(keyring, parseKeyring(spec));
    const total = Object.values(before).reduce((a, b) => a + b, 0);
    // The value tampered with above stays under s1 and is reported, the rest moves to s2.
    expect(await store.rewrap()).toEqual({ rewrapped: total - 1, failed: ['tenant/y/pw/1'] });
    expect(await store.keyUsage()).toEqual({ s2: total - 1, s1: 1 });
    expect(await store.rewrap()).toEqual({ rewrapped: 0, failed: ['tenant/y/pw/1'] });
    // Old key dropped: values still readable.
    replaceKeyring(keyring, parseKeyring(spec.split(',')[0]!));
    expect(await store.getString('tenant/r/pw/1', 'owner:r')).toBe('rotate-me');
    expect(await store.delete('tenant/r/pw/1')).toBe(true);
    expect(await store.delete('tenant/r/pw/1')).toBe(false);
  });
});
