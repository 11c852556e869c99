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

  it('registers fixed ids (browsers ship theirs), several redirect URIs, rotates secrets and removes clients', async () => {
    const firefox = admin('clients', 'add', '--id', '5882386C6D801776', '--name', 'Firefox', '--public', '--trusted', '--can-grant',
      '--redirect-uri', 'urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel', '--scopes', 'profile https://identity.mozilla.com/apps/oldsync');
    expect(firefox.status).toBe(0);
    expect(firefox.stdout).toBe('client_id 5882386c6d801776\n');
    expect(admin('clients', 'add', '--id', '5882386c6d801776', '--name', 'again', '--public', '--redirect-uri', 'https://a.example/').stderr).toContain('already registered');
    const native = admin('clients', 'add', '--name', 'Native', '--public', '--local-redirects', '--redirect-uri', 'http://127.0.0.1/cb', '--redirect-uri', 'com.example.app:/cb', '--access-token-ttl', '3600');
    expect(native.status).toBe(0);
    const nativeId = /client_id ([0-9a-f]{16})/.exec(native.stdout)![1]!;
    const list = admin('clients', 'list').stdout;
    expect(list).toContain('5882386c6d801776  Firefox  urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel  public trusted can-grant  [profile https://identity.mozilla.com/apps/oldsync]');
    expect(list).toContain(`${nativeId}  Native  http://127.0.0.1/cb,com.example.app:/cb  public local-redirects  [profile]  access 3600s`);
    // Resource indicators (RFC 8707, issue 22): repeatable, listed, each an absolute URI without fragment.
    const api = admin('clients', 'add', '--name', 'API', '--redirect-uri', 'https://api-rp.example/cb', '--resource', 'https://api.example/v2', '--resource', 'urn:example:files');
    expect(api.status).toBe(0);
    const apiId = /client_id ([0-9a-f]{16})/.exec(api.stdout)![1]!;
    expect((await t.app.services.oauth.findClient(t.storage.db, apiId))!.allowedResources).toEqual(['https://api.example/v2', 'urn:example:files']);
    expect(admin('clients', 'list').stdout).toContain(`${apiId}  API  https://api-rp.example/cb  confidential  [profile]  access 86400s  resources https://api.example/v2,urn:example:files`);
    expect(admin('clients', 'add', '--name', 'x', '--redirect-uri', 'https://x.example/cb', '--resource', 'https://api.example/#f').status).toBe(2);
    // Refused: plain http to a non-loopback host, a lifetime past a day.
    expect(admin('clients', 'add', '--name', 'x', '--redirect-uri', 'http://shop.example/cb').status).toBe(2);
    expect(admin('clients', 'add', '--name', 'x', '--redirect-uri', 'https://shop.example/cb', '--access-token-ttl', '90000').status).toBe(2);

    const added = admin('clients', 'add', '--name', 'Rotating', '--redirect-uri', 'https://rot.example/cb');
    const id = /client_id ([0-9a-f]{16})/.exec(added.stdout)![1]!;
    const first = /client_secret ([0-9a-f]{64})/.exec(added.stdout)![1]!;
    const rotated = admin('clients', 'rotate', id);
    expect(rotated.status).toBe(0);
    const second = /client_secret ([0-9a-f]{64})/.exec(rotated.stdout)![1]!;
    const { oauth } = t.app.services;
    let client = (await oauth.findClient(t.storage.db, id))!;
    expect([oauth.clientSecretMatches(client, first), oauth.clientSecretMatches(client, second)]).toEqual([true, true]);
    expect(admin('clients', 'list').stdout).toContain(`${id}  Rotating  https://rot.example/cb  confidential rotating`);
    expect(admin('clients', 'rotate', id, '--finish').status).toBe(0);
    client = (await oauth.findClient(t.storage.db, id))!;
    expect([oauth.clientSecretMatches(client, first), oauth.clientSecretMatches(client, second)]).toEqual([false, true]);
    expect(admin('clients', 'rotate', '5882386c6d801776').status).toBe(2); // public: no secret to rotate
    expect(admin('clients', 'remove', id).stdout).toBe(`removed client ${id} and its tokens\n`);
    expect(await oauth.findClient(t.storage.db, id)).toBeNull();
    expect(admin('clients', 'remove', id).status).toBe(2);
  });

  it('registers clients with pairwise subjects (never allowed uid-revealing scopes) and JWT access tokens', async () => {
    const added = admin('clients', 'add', '--name', 'Private', '--redirect-uri', 'https://private.example/cb', '--pairwise-subjects', '--pairwise-rotation', '86400', '--jwt-access-tokens');
    expect(added.status).toBe(0);
    const id = /client_id ([0-9a-f]{16})/.exec(added.stdout)![1]!;
    expect(await t.app.services.oauth.findClient(t.storage.db, id)).toMatchObject({ pairwiseSubjects: true, pairwiseRotationSeconds: 86_400, jwtAccessTokens: true, allowedScopes: ['profile:email'] });
    expect(admin('clients', 'list').stdout).toContain(`${id}  Private  https://private.example/cb  confidential pairwise-subjects(rotation 86400s) jwt-access-tokens  [profile:email]`);
    const leaky = admin('clients', 'add', '--name', 'Leaky', '--redirect-uri', 'https://leaky.example/cb', '--pairwise-subjects', '--scopes', 'openid profile');
    expect(leaky.status).toBe(2);
    expect(leaky.stderr).toContain('pairwise subjects may not be allowed profile');
    expect(admin('clients', 'add', '--name', 'x', '--redirect-uri', 'https://x.example/cb', '--pairwise-rotation', '3600').status).toBe(2);
    expect(admin('clients', 'add', '--name', 'x', '--redirect-uri', 'https://x.example/cb', '--pairwise-subjects', '--pairwise-rotation', '60').status).toBe(2);
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
