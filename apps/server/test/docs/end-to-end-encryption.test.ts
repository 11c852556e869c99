import { join } from 'node:path';
import { compactDecrypt } from 'jose';
import { describe, expect, it } from 'vitest';
import { deriveScopedKey } from '@tessera/protocol';
import { verifiedAccount } from '../harness.js';
import { pageServer, registerFromPage, repoRoot as root, runShell, substitute, type Substitution } from './pages.js';

// The end-to-end encryption how-to runs as written: the client registered by the page's admin
// command, the relying party's notes-app.ts and the signed-in client's approve-with-keys.ts compiled
// and started by the page's own commands against the started server. Sign-ins are always confirmed
// here, so the page's prompt for the emailed code is answered from the captured mail. The test then
// checks that the key the relying party ended with is the one derived from the account's kB: the
// note it encrypted opens with it.

const PAGE = join(root, 'apps/portal/docs/relying-parties/how-tos/end-to-end-encryption.md');
const SCOPE = 'https://identity.mozilla.com/apps/notes';

describe('the end-to-end encryption how-to runs as written', () => {
  const page = pageServer({
    builds: ['apps/server/dist/cli/admin.js', 'packages/client/dist/index.js', 'packages/protocol/dist/index.js'],
    env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' },
  });

  it('delivers the scoped key to the relying party, which encrypts a note with it', async () => {
    const { t } = page;
    const dir = page.dir;
    const { shell, clientId } = await registerFromPage(page, PAGE, {
      shellTitles: ['', 'terminal 1: the relying party', 'terminal 2: the signed-in client'], files: ['notes-app.ts', 'approve-with-keys.ts'],
    });

    const account = await verifiedAccount(t, 'correct horse battery staple', { keys: true });
    const serverUrl: Substitution = [/http:\/\/127\.0\.0\.1:9000/g, t.url];
    const app = runShell(substitute(shell[1]!.body, [serverUrl, [/9f3c0a7d51e2b804/g, clientId]]), { cwd: dir });
    try {
      const authorizationUrl = new URL((await app.waitFor(/Sign in at (\S+)/, 150_000))[1]!);
      expect(authorizationUrl.searchParams.get('keys_jwk')).toMatch(/^[A-Za-z0-9_-]+$/);

      const since = t.mail.messages.length;
      const approve = runShell(substitute(shell[2]!.body, [
        serverUrl, [/alice@example\.com/g, account.email], [/<password>/g, account.password], [/<the URL notes-app\.js printed>/g, authorizationUrl.href],
      ]), { cwd: dir, stdin: true });
      try {
        await approve.waitFor(/Code from the email: /, 60_000);
        const mail = await t.mail.waitFor(account.email, 'verifyLoginCode', since);
        approve.write(`${mail.code!}\n`);
        const approved = await approve;
        expect(approved.status, approved.output).toBe(0);
      } finally {
        approve.stop();
      }

      await app.waitFor(/^decrypted: .*$/m, 60_000);
      const done = await app;
      expect(done.status, done.output).toBe(0);
      expect(done.output).toContain('decrypted: my note');
      // The key the relying party holds is the account's scoped key, derived from kB.
      const before = t.mail.messages.length;
      const signedIn = await t.accounts.signIn(account.email, account.password, { keys: true, verificationMethod: 'email-otp' });
      const confirm = await t.mail.waitFor(account.email, 'verifyLoginCode', before);
      await t.client.sessionVerifyCode(signedIn.sessionToken, { code: confirm.code! });
      const { kB } = await t.accounts.fetchKeys(signedIn.keyFetchToken!, signedIn.unwrapBKey);
      const data = await t.client.accountScopedKeyData(signedIn.sessionToken, { client_id: clientId, scope: SCOPE });
      const expected = deriveScopedKey({ kB, uid: account.uid, ...data[SCOPE]! });
      expect(done.output).toContain(`key ${expected.kid}`);
      const note = /^encrypted note (\S+)$/m.exec(done.output)![1]!;
      const opened = await compactDecrypt(note, Buffer.from(expected.k, 'base64url'));
      expect(new TextDecoder().decode(opened.plaintext)).toBe('my note');
      expect(opened.protectedHeader.kid).toBe(expected.kid);
    } finally {
      app.stop();
    }
  }, 300_000);
});
