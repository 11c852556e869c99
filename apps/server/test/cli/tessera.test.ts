import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, newEmail, type TestServer } from '../harness.js';

// The newcomer's path from README: the `tessera` CLI (packages/client, built by `tsc -b`).
const CLI = fileURLToPath(new URL('../../../../packages/client/dist/cli.js', import.meta.url));

function run(args: string[], env: Record<string, string>, feed?: () => Promise<string>) {
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    if (feed) void feed().then((line) => child.stdin.write(`${line}\n`));
    else child.stdin.end();
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe('the tessera CLI', () => {
  let t: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await createTestServer();
    env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'tessera-cli-')), TESSERA_URL: t.url, TESSERA_PASSWORD: 'cli password 123' };
  });
  afterAll(async () => t?.close());

  it('signs up with the emailed code, signs in, unwraps the keys, reports status and signs out', async () => {
    const email = newEmail('cli');
    const signup = await run(['signup', email], env, async () => (await t.mail.waitFor(email, 'verifyShortCode')).code!);
    expect(signup.err).not.toMatch(/error/);
    expect(signup.code).toBe(0);
    expect(signup.out).toContain('Confirmed.');

    const signin = await run(['signin', email, '--show-keys'], env);
    expect(signin.code).toBe(0);
    expect(signin.out).toMatch(/kA [0-9a-f]{64}\nkB [0-9a-f]{64}/);

    const status = await run(['status'], env);
    expect(status.out).toContain('session verified; email confirmed');
    expect((await run(['signout'], env)).out).toContain('Signed out.');
    expect((await run(['status'], env)).code).toBe(2);
  });

  it('asks for an emailed unblock code when rate limiting blocks the sign-in', async () => {
    const email = newEmail('blocked');
    await run(['signup', email], env, async () => (await t.mail.waitFor(email, 'verifyShortCode')).code!);
    // Five wrong passwords from this address: the sixth sign-in is blocked.
    for (let i = 0; i < 5; i++) expect((await run(['signin', email], { ...env, TESSERA_PASSWORD: `wrong ${i}` })).err).toContain('error 103');
    const since = t.mail.messages.length;
    const r = await run(['signin', email], env, async () => (await t.mail.waitFor(email, 'unblockCode', since)).code!);
    expect(r.err).not.toMatch(/error/);
    expect(r.out).toContain('an unblock code was emailed');
    expect(r.out).toMatch(/Signed in: uid [0-9a-f]{32}\./);
    expect(r.code).toBe(0);
  });

  it('exits non-zero with the catalogue error for an unknown account', async () => {
    const r = await run(['signin', newEmail('nobody')], env);
    expect(r.code).toBe(2);
    expect(r.err).toContain('error 102 (ACCOUNT_UNKNOWN)');
  });
});
