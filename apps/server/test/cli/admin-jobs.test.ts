import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../harness.js';

// `npm run admin -- jobs …`: the job queue as an operator sees it. The attack: a payload (which
// holds addresses and account ids) printed to a terminal, a log or a support ticket.

const ADMIN = fileURLToPath(new URL('../../dist/cli/admin.js', import.meta.url));
const SECRET_ADDRESS = 'payload.address@example.com';

describe('the admin command: jobs', () => {
  let t: TestServer;
  const admin = (...args: string[]) => spawnSync(process.execPath, [ADMIN, ...args], { env: { ...process.env, DATABASE_URL: t.databaseUrl }, encoding: 'utf8' });
  const job = (id: string, state: 'pending' | 'dead', lastError: string | null) => ({
    id, kind: 'test.cli', dedupe_key: null, payload: JSON.stringify({ email: SECRET_ADDRESS }), state,
    attempts: state === 'dead' ? 200 : 1, run_at: Date.UTC(2030, 0, 1), last_error: lastError, created_at: Date.UTC(2026, 0, 1), updated_at: Date.UTC(2026, 0, 2),
  });
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(async () => t?.close());

  it('lists, shows and retries jobs without printing their payload', async () => {
    expect(admin('jobs', 'list').stdout).toBe('no jobs\n');
    const dead = 'a'.repeat(32);
    const waiting = 'b'.repeat(32);
    await t.storage.db.insertInto('jobs').values([job(dead, 'dead', 'HTTP 503'), job(waiting, 'pending', null)]).execute();

    const all = admin('jobs', 'list');
    expect(all.status).toBe(0);
    expect(all.stdout).toBe(`${dead}  test.cli  dead  attempts 200  dead since 2026-01-02T00:00:00.000Z  last error: HTTP 503\n`
      + `${waiting}  test.cli  pending  attempts 1  due 2030-01-01T00:00:00.000Z\n`);
    expect(admin('jobs', 'list', '--state', 'dead').stdout).toBe(`${dead}  test.cli  dead  attempts 200  dead since 2026-01-02T00:00:00.000Z  last error: HTTP 503\n`);
    expect(admin('jobs', 'list', '--state', 'done').status).toBe(2);

    const shown = admin('jobs', 'show', dead);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('kind        test.cli\nstate       dead\nattempts    200\n');
    expect(shown.stdout).toContain('last error  HTTP 503\n');
    for (const out of [all.stdout, shown.stdout]) expect(out).not.toContain(SECRET_ADDRESS);

    const retried = admin('jobs', 'retry', dead);
    expect(retried.stdout).toBe(`job ${dead} is due now (a running server takes it up at its next sweep)\n`);
    const row = await t.storage.db.selectFrom('jobs').selectAll().where('id', '=', dead).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'pending', attempts: 0 });
    expect(Number(row.run_at)).toBeLessThanOrEqual(Date.now());
    expect(admin('jobs', 'list', '--state', 'dead').stdout).toBe('no dead jobs\n');

    expect(admin('jobs', 'show', 'c'.repeat(32)).stderr).toContain('no job');
    expect(admin('jobs', 'retry').status).toBe(2);
    await t.storage.db.deleteFrom('jobs').execute();
  });
});
