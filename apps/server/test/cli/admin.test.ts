import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, newEmail, type TestServer } from '../harness.js';
import { expectError } from '../helpers.js';

const ADMIN = fileURLToPath(new URL('../../dist/cli/admin.js', import.meta.url));

describe('the admin command', () => {
  let t: TestServer;
  const admin = (...args: string[]) => spawnSync(process.execPath, [ADMIN, ...args], { env: { ...process.env, DATABASE_URL: t.databaseUrl }, encoding: 'utf8' });
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(async () => t?.close());

  it('registers confidential OAuth clients whose secret is shown once and stored only as a hash', async () => {
    // Before any: a line says so, rather than nothing at all.
    const empty = admin('clients', 'list');
    expect(empty.status).toBe(0);
    expect(empty.stdout).toBe('no OAuth clients registered (add one with `npm run admin -- clients add --name <name> --redirect-uri <uri>`)\n');
    const added = admin('clients', 'add', '--name', 'Shop', '--redirect-uri', 'https://shop.example/cb');
    expect(added.status).toBe(0);
    const id = /client_id ([0-9a-f]{16})/.exec(added.stdout)![1]!;
    const secret = /client_secret ([0-9a-f]{64})/.exec(added.stdout)![1]!;
    expect(admin('clients', 'list').stdout).toContain(`${id}  Shop  https://shop.example/cb  confidential`);
    // The secret authenticates the client (as /account/stub checks it); nothing stores it in clear.
    const { oauth } = t.app.services;
    const client = (await oauth.findClient(t.storage.db, id))!;
    expect(oauth.clientSecretMatches(client, secret)).toBe(true);
    expect(oauth.clientSecretMatches(client, secret.replace(/.$/, (c) => (c === '0' ? '1' : '0')))).toBe(false);
    expect(client.hashedSecret).not.toBe(secret);
    expect(admin('clients', 'add', '--name', 'x').status).toBe(2);
  });

  it('records complaints that stop mail, and clears them', async () => {
    const email = newEmail('complainer');
    expect(admin('bounces', 'add', email, 'complaint').status).toBe(0);
    expect(admin('bounces', 'list', email).stdout).toContain('complaint');
    await expectError(t.accounts.signUp(email, 'a password here'), 'BOUNCE_COMPLAINT', 400);
    expect(admin('bounces', 'clear', email).stdout).toBe(`cleared 1 entry for ${email}\n`);
    expect(admin('bounces', 'clear', email).stdout).toBe(`cleared 0 entries for ${email}\n`);
    const ok = await t.accounts.signUp(email, 'a password here');
    expect(ok.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(admin('bounces', 'add', email, 'sideways').status).toBe(2);
  });
});
