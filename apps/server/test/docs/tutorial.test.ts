import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifiedAccount } from '../harness.js';
import { pageServer, registerFromPage, repoRoot as root, runShell, substitute, type Substitution } from './pages.js';

// Issue 14: the relying-party tutorial runs as written. Its shell blocks run in order (the first
// through the real admin command against the test server's database); its `app.ts` blocks, joined,
// and its `approve.ts` block are compiled by the page's own `tsc` command and run by the page's
// own `node` commands against the started server, over HTTP. The test edits nothing but the page's
// sample values (server URL, client id, session token, authorization URL), and each must match.

const PAGE = join(root, 'apps/portal/docs/relying-parties/tutorials/integration-with-fxa.md');

describe('the relying-party tutorial (integration-with-fxa.md) runs as written', () => {
  // The admin command and the SDK the page imports run from their builds.
  const page = pageServer({ builds: ['apps/server/dist/cli/admin.js', 'packages/client/dist/index.js'] });

  it('registers a client, signs a person in with code + PKCE, reads userinfo, refreshes, introspects and revokes', async () => {
    const { t } = page;
    const dir = page.dir;
    // 1. The admin command, from the repository, on the test server's database.
    const { shell, clientId } = await registerFromPage(page, PAGE, {
      shellTitles: ['', 'terminal 1: the relying party', 'terminal 2: the signed-in client'], files: ['app.ts', 'approve.ts'],
    });
    const client = await t.app.services.oauth.findClient(t.storage.db, clientId);
    expect(client).toMatchObject({ publicClient: true, localRedirects: true, redirectUris: ['http://127.0.0.1/callback'] });

    // The person, signed in on a first-party client: a confirmed account and session.
    const account = await verifiedAccount(t);
    const serverUrl: Substitution = [/http:\/\/127\.0\.0\.1:9000/g, t.url];

    // Terminal 1: compile both files, start the app; it prints the authorization URL and waits.
    const app = runShell(substitute(shell[1]!.body, [serverUrl, [/9f3c0a7d51e2b804/g, clientId]]), { cwd: dir });
    try {
    const printed = await app.waitFor(/Sign in at (\S+)/, 150_000);
    const authorizationUrl = new URL(printed[1]!);
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${t.url}/v1/authorization`);
    expect(authorizationUrl.searchParams.get('client_id')).toBe(clientId);

    // Terminal 2: the signed-in client approves with the URL's parameters and follows the redirect.
    const approve = await runShell(substitute(shell[2]!.body, [
      serverUrl, [/<session token>/g, account.sessionToken], [/<the URL app\.js printed>/g, authorizationUrl.href],
    ]), { cwd: dir });
    expect(approve.status, approve.output).toBe(0);

    // The app finishes on its own once the browser (here approve.ts) has come back.
    await app.waitFor(/^revoked: .*$/m, 60_000);
    const done = await app;
    expect(done.status, done.output).toBe(0);
    expect(done.output).toContain(`signed in: sub ${account.uid}, acr AAL1, scope "openid profile"`);
    expect(done.output).toContain(`userinfo: ${account.email} (verified: true)`);
    expect(done.output).toContain('refreshed: active true');
    expect(done.output).toContain('revoked: refreshing answers 400 errno 108');
    // RFC 7009 §2.1: the refreshed access token went with the refresh token.
    expect(done.output).toContain('access token after revocation: active false');
    // What the server holds afterwards: the app's refresh token is gone.
    const attached = await t.client.accountAttachedClients(account.sessionToken);
    expect(attached.filter((c) => c.clientId === clientId && c.refreshTokenId)).toEqual([]);
    } finally {
      app.stop();
    }
  }, 300_000);
});
