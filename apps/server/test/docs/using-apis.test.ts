import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { verifiedAccount } from '../harness.js';
import { codeBlocks, pageServer, repoRoot, runShell, TSC, tsFiles } from './pages.js';

// The OAuth section of "Using the APIs" (relying-parties/reference/using-apis.md) runs as written:
// its call-api.ts, compiled as the tutorial compiles its files, with a live access token.

const PAGE = join(repoRoot, 'apps/portal/docs/relying-parties/reference/using-apis.md');
const VERIFIER = randomHex(32);

describe('using-apis.md: calling the APIs with an OAuth access token runs as written', () => {
  const page = pageServer();

  it('reads userinfo and the profile, and verifies the token as a resource server', async () => {
    const { t } = page;
    const files = tsFiles(codeBlocks(readFileSync(PAGE, 'utf8')));
    expect([...files.keys()]).toEqual(['call-api.ts']);
    writeFileSync(join(page.dir, 'call-api.ts'), files.get('call-api.ts')!);

    const clientId = randomHex(8);
    await t.app.services.oauth.registerClient(t.storage.db, { id: clientId, name: 'API caller', redirectUris: ['https://rp.example/cb'], publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    const account = await verifiedAccount(t);
    const { code } = await t.client.oauthAuthorization(account.sessionToken, {
      client_id: clientId, scope: 'profile', code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'), code_challenge_method: 'S256',
    });
    const { access_token } = await t.client.oauthToken(undefined, { client_id: clientId, code, code_verifier: VERIFIER });

    const run = await runShell(`${TSC} call-api.ts\nnode call-api.js`, { cwd: page.dir, env: { TESSERA_URL: t.url, ACCESS_TOKEN: access_token } });
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain(`userinfo: ${account.uid} ${account.email}`);
    expect(run.output).toContain(`profile: ${account.uid} ${account.email}`);
    expect(run.output).toContain(`verify: ${account.uid} ${clientId} [profile]`);
    expect(run.output).toContain('verify, unknown token: errno 108');
  }, 180_000);
});
