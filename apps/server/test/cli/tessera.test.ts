import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, newEmail, type TestServer } from '../harness.js';
import { appFor, codeAt } from '../domains/two-step/two-step-helpers.js';

// The newcomer's path from README: the `tessera` CLI (packages/client, built by `tsc -b`).
const CLI = fileURLToPath(new URL('../../../../packages/client/dist/cli.js', import.meta.url));

/** Runs the CLI with stdin a pipe: fed one line when `feed` resolves, else closed at once. */
function run(args: string[], env: Record<string, string | undefined>, feed?: () => Promise<string>) {
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // A feed that fails (no mail came) closes stdin: the CLI then fails instead of waiting forever.
    if (feed) void feed().then((line) => child.stdin.write(`${line}\n`), () => child.stdin.end());
    else child.stdin.end();
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/** How long to wait for a mail the CLI causes: it stretches the password (v2) first, slow on a busy machine. */
const MAIL_WAIT = 20_000;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
// util-linux `script` (Debian's bsdutils, an essential package) gives the pty; CI must have it.
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript && process.env.CI) throw new Error('util-linux `script` not found: the CLI\'s terminal tests need it (apt-get install bsdutils)');

/**
 * Runs a shell command in a real pseudo-terminal (util-linux `script`; no native module): what is
 * typed goes through the terminal's line discipline, which echoes unless the program turns echo
 * off. `screen` is everything the terminal showed, prompts and echoes included.
 */
function inPty(command: string, env: Record<string, string | undefined>) {
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...process.env, ...env } });
  let screen = '';
  child.stdout.on('data', (d) => (screen += d));
  const exit = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return {
    get screen() {
      return screen;
    },
    exit,
    type: (keys: string) => child.stdin.write(keys),
    /** Resolves once `text` is on the screen after `from` (a screen length). */
    async waitFor(text: string, from = 0): Promise<number> {
      const deadline = Date.now() + 20_000;
      while (!screen.includes(text, from)) {
        if (Date.now() > deadline) throw new Error(`"${text}" never appeared; the screen shows:\n${screen}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return screen.indexOf(text, from) + text.length;
    },
  };
}
const cli = (...args: string[]) => [process.execPath, CLI, ...args].map(quote).join(' ');

/** An address nothing listens on: a port the system gave, then closed. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Each CLI run is a Node process that stretches the password: generous timeouts for busy machines.
describe('the tessera CLI', { timeout: 90_000 }, () => {
  let t: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await createTestServer();
    env = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'tessera-cli-')), TESSERA_URL: t.url, TESSERA_PASSWORD: 'cli password 123' };
  });
  afterAll(async () => t?.close());

  it('signs up with the emailed code, signs in, unwraps the keys, reports status and signs out', async () => {
    const email = newEmail('cli');
    const signup = await run(['signup', email], env, async () => (await t.mail.waitFor(email, 'verifyShortCode', 0, MAIL_WAIT)).code!);
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

  it('signs in to an account with two-step authentication with the authenticator\'s code, never an emailed one (issue 22)', async () => {
    const email = newEmail('cli2fa');
    const signup = await run(['signup', email], env, async () => (await t.mail.waitFor(email, 'verifyShortCode', 0, MAIL_WAIT)).code!);
    expect(signup.code).toBe(0);
    // Turn two-step on for the account with the SDK, from a session of its own.
    const { sessionToken } = await t.accounts.signIn(email, env.TESSERA_PASSWORD!);
    const { secret } = await t.client.totpCreate(sessionToken, {});
    const app = appFor(secret);
    await t.client.totpSetupVerify(sessionToken, { code: codeAt(t, app) });
    await t.client.totpSetupComplete(sessionToken, {});
    const since = t.mail.messages.length;

    const wrong = await run(['signin', email, '--code', '000000'], env);
    expect(wrong.code).toBe(2);
    expect(wrong.out).toContain('the sign-in waits for the second factor');
    expect(wrong.err).toContain('Nothing was confirmed.');

    // The code of the next 30-second step: the one just used may not count twice.
    const signin = await run(['signin', email, '--show-keys'], env, async () => codeAt(t, app, 1));
    expect(signin.err).toBe('Code from your authenticator app, or a backup code: ');
    expect(signin.code).toBe(0);
    expect(signin.out).toContain('Confirmed with the second factor.');
    expect(signin.out).toMatch(/kA [0-9a-f]{64}\nkB [0-9a-f]{64}/);
    // No confirmation code was mailed for either sign-in.
    expect(t.mail.messages.slice(since).filter((m) => m.to === email && m.code)).toEqual([]);
  });

  it('asks for an emailed unblock code when rate limiting blocks the sign-in', async () => {
    const email = newEmail('blocked');
    await run(['signup', email], env, async () => (await t.mail.waitFor(email, 'verifyShortCode', 0, MAIL_WAIT)).code!);
    // Five wrong passwords from this address: the sixth sign-in is blocked.
    for (let i = 0; i < 5; i++) expect((await run(['signin', email], { ...env, TESSERA_PASSWORD: `wrong ${i}` })).err).toContain('error 103');
    const since = t.mail.messages.length;
    const r = await run(['signin', email], env, async () => (await t.mail.waitFor(email, 'unblockCode', since, MAIL_WAIT)).code!);
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

  describe.runIf(hasScript)('in a terminal (issue 10)', () => {
    const tty = () => ({ ...env, TESSERA_PASSWORD: undefined });

    it('reads the password without echo (Backspace edits it), asks it twice, and asks again after a wrong code', async () => {
      const email = newEmail('pty');
      const term = inPty(cli('signup', email), tty());
      let at = await term.waitFor('New password: ');
      term.type('short\r');
      at = await term.waitFor('The password must have at least 8 characters. Try again.', at);
      await term.waitFor('New password: ', at);
      term.type('typed secret Z\u007f\u007fZ\r'); // two Backspaces: the password is "typed secretZ"
      at = await term.waitFor('Repeat it: ', at);
      term.type('typed secretZ\r');
      at = await term.waitFor('Confirmation code from the email: ', at);
      term.type('000000\r');
      at = await term.waitFor('That code is wrong or has expired. Try again (2 tries left).', at);
      const { code } = await t.mail.waitFor(email, 'verifyShortCode', 0, MAIL_WAIT);
      term.type(`${code}\r`);
      expect(await term.exit).toBe(0);
      expect(term.screen).toContain('Confirmed.');
      // Nothing of either password reached the screen; the code, typed at a line prompt, did.
      expect(term.screen).not.toMatch(/short|typed|secret/);
      expect(term.screen).toContain('000000');
      // The edited password is the account's: a pipe with --password-stdin signs in with it.
      const signin = await run(['signin', email, '--password-stdin'], tty(), async () => 'typed secretZ');
      expect(signin.err).toBe('');
      expect(signin.out).toMatch(/Keys unwrapped/);
    });

    it('Ctrl-C at the password prompt restores the terminal and exits 130', async () => {
      // stty runs after the CLI, in the same terminal: it shows the mode the CLI left behind.
      const term = inPty(`${cli('signin', newEmail('interrupted'))}; code=$?; stty -a; exit $code`, tty());
      const at = await term.waitFor('Password: ');
      term.type('half typed\u0003');
      expect(await term.exit).toBe(130);
      const after = term.screen.slice(at);
      expect(after).not.toContain('half typed');
      expect(after).not.toContain('error');
      expect(after).toMatch(/(^|\s)icanon(\s|$)/m);
      expect(after).toMatch(/(^|\s)echo(\s|$)/m);
    });

    it('says what is wrong with a bad email, with exit status 2', async () => {
      const term = inPty(cli('signup', 'me@localhost'), tty());
      expect(await term.exit).toBe(2);
      expect(term.screen).toContain('error: "me@localhost" is not an email address: the domain "localhost" has no dot (like example.com)');
      const noAt = inPty(cli('signin', 'me.example.com'), tty());
      expect(await noAt.exit).toBe(2);
      expect(noAt.screen).toContain('it has no @');
      expect(noAt.screen).not.toContain('Password:');
    });

    it('names the URL of a stopped server and how to start one, with exit status 2', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const term = inPty(cli('signin', 'me@example.com', '--password', 'whatever password'), { ...env, TESSERA_URL: url });
      expect(await term.exit).toBe(2);
      expect(term.screen).toContain(`error: no server answered at ${url} (connection refused: nothing listens on that port) (the URL came from TESSERA_URL).`);
      expect(term.screen).toContain('Start the server with `npm start`');
      expect(term.screen).toContain('--url <origin> or TESSERA_URL');
      expect(term.screen).not.toContain('fetch failed');
    });

    it('says a URL that answers HTML is not a Tessera server, with its status and without the page', async () => {
      const web = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Some site</title><h1>Not Found</h1>'));
      await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(web.address() as { port: number }).port}`;
        const term = inPty(cli('--url', url, 'signin', 'me@example.com', '--password', 'whatever password'), env);
        expect(await term.exit).toBe(2);
        expect(term.screen).toContain(`error: ${url} does not look like a Tessera server: /v1/account/credentials/status answered HTTP 404 with an HTML page (the URL came from --url).`);
        expect(term.screen).not.toMatch(/doctype|<title>|Not Found|Some site/);
      } finally {
        await new Promise((resolve) => web.close(resolve));
      }
    });
  });

  it('refuses to read a password from a pipe unless --password-stdin says so, and applies the policy to it', async () => {
    const email = newEmail('piped');
    const refused = await run(['signup', email], { ...env, TESSERA_PASSWORD: undefined });
    expect(refused.code).toBe(2);
    expect(refused.err).toBe('error: stdin is not a terminal, so the password cannot be asked without echo: pipe it with --password-stdin (its first line is the password), or set TESSERA_PASSWORD\n');
    const short = await run(['signup', email, '--password-stdin'], { ...env, TESSERA_PASSWORD: undefined }, async () => 'abc');
    expect(short).toMatchObject({ code: 2, err: 'error: The password must have at least 8 characters.\n' });
    const itself = await run(['signup', email, '--password', email.toUpperCase()], env);
    expect(itself).toMatchObject({ code: 2, err: 'error: The password must not be your email address.\n' });
  });

  it('exits 2 with "nothing confirmed" when stdin closes at the code prompt, and signin is the way back', async () => {
    const email = newEmail('closed');
    const closed = await run(['signup', email], env);
    expect(closed.code).toBe(2);
    expect(closed.err).toContain(`error: stdin ended before a code was entered: nothing confirmed. The account ${email} exists unconfirmed: \`tessera signin ${email}\` emails a new code to confirm it.`);
    // Three wrong codes: the same way back is named.
    const wrong = await run(['signup', newEmail('wrong')], env, async () => '000000\n000001\n000002');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('Try again (1 try left).');
    expect(wrong.err).toMatch(/That code is wrong or has expired\. Nothing was confirmed\. The account \S+ exists unconfirmed: `tessera signin \S+` emails a new code/);
    // The way back works: signin emails a new code and confirms the account with it.
    const since = t.mail.messages.length;
    const back = await run(['signin', email], env, async () => (await t.mail.waitFor(email, 'verifyShortCode', since, MAIL_WAIT)).code!);
    expect(back.out).toContain('Confirmed.');
    expect(back.code).toBe(0);
    expect((await run(['status'], env)).out).toContain('email confirmed');
  });
});
