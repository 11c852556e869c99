#!/usr/bin/env node
// `tessera`: a small command line over the SDK, so a newcomer can create an account, confirm it,
// sign in and unwrap the keys against a running server without writing code.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Input, InputClosed, Interrupted } from './cli-input.js';
import {
  checkPassword, isTesseraError, PASSWORD_MIN_LENGTH, PasswordPolicyError, TesseraAccounts, TesseraClient, TesseraConnectionError,
  type SignedIn,
} from './index.js';

const DEFAULT_URL = 'http://localhost:9000';
/** Wrong codes accepted at the prompt before the CLI stops and names the way back. */
const CODE_TRIES = 3;

const HELP = `tessera — the Tessera account API from the command line

Usage: tessera [options] <command>

Commands:
  signup <email>     create an account (v2 password), then confirm it with the emailed code
  signin <email>     sign in, confirm the sign-in if asked, fetch and unwrap the keys
  status             the saved session's status
  signout            destroy the saved session

Options:
  --url <origin>     server origin (default $TESSERA_URL or ${DEFAULT_URL})
  --password-stdin   read the password from the first line of stdin (for scripts and pipes)
  --password <pw>    the password (default $TESSERA_PASSWORD); visible to other local users in
                     the process list: prefer the prompt or --password-stdin
  --code <digits>    the emailed confirmation code, or on a two-step account the authenticator's
                     code or a backup code (default: asked)
  --show-keys        print kA and kB themselves, not only their fingerprints
  -h, --help         this text

Passwords: asked without echo when stdin is a terminal; otherwise the CLI refuses unless
--password-stdin (or $TESSERA_PASSWORD, or --password) gives it. A new password needs at least
${PASSWORD_MIN_LENGTH} characters and must not be the email address.

The emailed code is in the server's log and in data/outbox/ when the server runs without SMTP.
A wrong code is asked again (${CODE_TRIES} tries). An account whose sign-up code was never entered exists
unconfirmed: \`tessera signin <email>\` emails a new code and confirms it.
The session is saved (mode 0600) in $XDG_CONFIG_HOME/tessera/session.json.

Exit status: 0 done; 1 no command (this text); 2 an error, with a message saying what to do;
130 interrupted (Ctrl-C at the password prompt).`;

/** A mistake the person can fix: printed as it is, exit status 2. */
class CliError extends Error {}

interface Args {
  command?: string;
  email?: string;
  url: string;
  /** Where the URL came from, for the hint when no server answers there. */
  urlFrom: string;
  password?: string;
  passwordStdin: boolean;
  code?: string;
  showKeys: boolean;
}

function parseArgs(argv: string[]): Args {
  const fromEnv = process.env.TESSERA_URL;
  const args: Args = { url: fromEnv || DEFAULT_URL, urlFrom: fromEnv ? 'TESSERA_URL' : 'the default', passwordStdin: false, showKeys: false };
  if (process.env.TESSERA_PASSWORD) args.password = process.env.TESSERA_PASSWORD;
  const rest: string[] = [];
  const value = (i: number, name: string) => {
    const v = argv[i];
    if (v === undefined) throw new CliError(`${name} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') args.command = 'help';
    else if (a === '--url') [args.url, args.urlFrom] = [value(++i, a), '--url'];
    else if (a === '--password') args.password = value(++i, a);
    else if (a === '--password-stdin') args.passwordStdin = true;
    else if (a === '--code') args.code = value(++i, a);
    else if (a === '--show-keys') args.showKeys = true;
    else if (a.startsWith('-')) throw new CliError(`unknown option ${a} (tessera --help lists them)`);
    else rest.push(a);
  }
  args.command ??= rest[0];
  if (rest[1]) args.email = rest[1];
  args.url = checkUrl(args.url, args.urlFrom);
  return args;
}

function checkUrl(url: string, from: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`the server URL "${url}" (from ${from}) is not a URL: give the server's origin, like ${DEFAULT_URL}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError(`the server URL "${url}" (from ${from}) is not http:// or https://: give the server's origin, like ${DEFAULT_URL}`);
  }
  return url;
}

/**
 * What is wrong with an address, in words, for the mistakes people make; the server checks the
 * whole grammar and says the rest.
 */
function emailProblem(email: string): string | undefined {
  const bad = (why: string) => `"${email}" is not an email address: ${why}`;
  const at = email.lastIndexOf('@');
  if (at < 0) return bad('it has no @ (an address looks like name@example.com)');
  if (/\s/u.test(email)) return bad('it contains a space');
  if (email.indexOf('@') !== at) return bad('it has more than one @');
  if (at === 0) return bad('nothing comes before the @');
  const domain = email.slice(at + 1);
  if (!domain) return bad('nothing comes after the @');
  if (!domain.includes('.')) return bad(`the domain "${domain}" has no dot (like example.com)`);
  if (domain.split('.').some((label) => !label)) return bad(`the domain "${domain}" has an empty part between dots`);
  return undefined;
}

const sessionFile = join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'tessera', 'session.json');

function saveSession(url: string, s: SignedIn): void {
  mkdirSync(dirname(sessionFile), { recursive: true, mode: 0o700 });
  writeFileSync(sessionFile, JSON.stringify({ url, uid: s.uid, email: s.email, sessionToken: s.sessionToken }), { mode: 0o600 });
}

function loadSession(): { url: string; uid: string; email: string; sessionToken: string } {
  try {
    return JSON.parse(readFileSync(sessionFile, 'utf8'));
  } catch {
    throw new CliError('no saved session: run `tessera signin <email>` first');
  }
}

const input = new Input();
const say = (line: string) => process.stdout.write(`${line}\n`);
const fingerprint = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex').slice(0, 16);

/**
 * The password: --password / $TESSERA_PASSWORD, else stdin's first line with --password-stdin,
 * else the terminal without echo. A new password is checked against the policy; at the terminal
 * it is asked twice, and again after a refusal.
 */
async function readPassword(args: Args, email: string, isNew: boolean): Promise<string> {
  const given = args.password ?? (args.passwordStdin ? await input.line('', 'stdin ended before the password line (--password-stdin reads its first line)') : undefined);
  if (given !== undefined) {
    const refused = isNew ? checkPassword(given, { email }) : undefined;
    if (refused) throw new CliError(refused.reason);
    return given;
  }
  if (!input.isTerminal) {
    throw new CliError('stdin is not a terminal, so the password cannot be asked without echo: pipe it with --password-stdin (its first line is the password), or set TESSERA_PASSWORD');
  }
  for (let attempt = 1; ; attempt++) {
    const password = await input.secret(isNew ? 'New password: ' : 'Password: ');
    if (!isNew) return password;
    const refused = checkPassword(password, { email });
    const problem = refused?.reason ?? (password === (await input.secret('Repeat it: ')) ? undefined : 'The two passwords differ.');
    if (!problem) return password;
    if (attempt >= 3) throw new CliError(problem);
    process.stderr.write(`${problem} Try again.\n`);
  }
}

/**
 * Confirms the session with the emailed code: --code once, or asked up to CODE_TRIES times. The
 * way back after that, and after stdin closes, is a new sign-in, which emails a new code.
 */
async function confirm(client: TesseraClient, signed: SignedIn, args: Args, wayBack: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const code = args.code ?? (await input.line('Confirmation code from the email: ', `stdin ended before a code was entered: nothing confirmed. ${wayBack}`)).trim();
    try {
      if (!/^\d{6,8}$/.test(code)) throw new CliError(`"${code}" is not a code: the code is the 6 digits in the email.`);
      await client.sessionVerifyCode(signed.sessionToken, { code });
      say('Confirmed.');
      return;
    } catch (err) {
      const wrong = isTesseraError(err, 'INVALID_EXPIRED_OTP_CODE') ? 'That code is wrong or has expired.' : err instanceof CliError ? err.message : undefined;
      if (!wrong) throw err;
      if (args.code !== undefined || attempt >= CODE_TRIES) throw new CliError(`${wrong} Nothing was confirmed. ${wayBack}`);
      process.stderr.write(`${wrong} Try again (${CODE_TRIES - attempt} ${CODE_TRIES - attempt === 1 ? 'try' : 'tries'} left).\n`);
    }
  }
}

/**
 * Confirms a sign-in to an account with two-step authentication, which waits for the second factor
 * (no code is emailed for it): a 6-digit code from the authenticator app, or one of the account's
 * backup codes (10 letters and digits), asked up to CODE_TRIES times.
 */
async function confirmSecondFactor(client: TesseraClient, signed: SignedIn, args: Args, wayBack: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const code = args.code ?? (await input.line('Code from your authenticator app, or a backup code: ', `stdin ended before a code was entered: nothing confirmed. ${wayBack}`)).trim();
    let wrong: string | undefined;
    try {
      if (/^\d{6}$/.test(code)) {
        const { success } = await client.sessionVerifyTotp(signed.sessionToken, { code });
        if (success) {
          say('Confirmed with the second factor.');
          return;
        }
        wrong = 'That code is wrong, or was already used.';
      } else if (/^[0-9a-zA-Z]{10}$/.test(code)) {
        const { remaining } = await client.sessionVerifyRecoveryCode(signed.sessionToken, { code: code.toLowerCase() });
        say(`Confirmed with a backup code (${remaining} left${remaining <= 2 ? ': make new ones soon' : ''}).`);
        return;
      } else {
        wrong = `"${code}" is not a code: the app shows 6 digits, a backup code has 10 letters and digits.`;
      }
    } catch (err) {
      if (!isTesseraError(err, 'RECOVERY_CODE_NOT_FOUND')) throw err;
      wrong = 'That backup code is wrong, or was already used.';
    }
    if (args.code !== undefined || attempt >= CODE_TRIES) throw new CliError(`${wrong} Nothing was confirmed. ${wayBack}`);
    process.stderr.write(`${wrong} Try again (${CODE_TRIES - attempt} ${CODE_TRIES - attempt === 1 ? 'try' : 'tries'} left).\n`);
  }
}

async function main(args: Args): Promise<number> {
  if (!args.command || args.command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return args.command ? 0 : 1;
  }
  const client = new TesseraClient({ baseUrl: args.url });
  const accounts = new TesseraAccounts(client);
  const needEmail = () => {
    if (!args.email) throw new CliError(`usage: tessera ${args.command} <email>`);
    const problem = emailProblem(args.email);
    if (problem) throw new CliError(problem);
    return args.email;
  };

  switch (args.command) {
    case 'signup': {
      const email = needEmail();
      const signed = await accounts.signUp(email, await readPassword(args, email, true), { verificationMethod: 'email-otp' });
      say(`Account created: uid ${signed.uid}. A 6-digit code was emailed to ${email}.`);
      await confirm(client, signed, args, `The account ${email} exists unconfirmed: \`tessera signin ${email}\` emails a new code to confirm it.`);
      saveSession(args.url, signed);
      return 0;
    }
    case 'signin': {
      const email = needEmail();
      const secret = await readPassword(args, email, false);
      let signed: SignedIn;
      try {
        signed = await accounts.signIn(email, secret, { keys: true, verificationMethod: 'email-otp' });
      } catch (err) {
        // Rate limiting paused sign-ins for this account here: an emailed unblock code lifts it.
        if (!isTesseraError(err, 'REQUEST_BLOCKED')) throw err;
        await accounts.sendUnblockCode(email);
        say(`Sign-in blocked after too many attempts; an unblock code was emailed to ${email}.`);
        const unblockCode = (await input.line('Unblock code from the email: ', 'stdin ended before the unblock code was entered: not signed in.')).trim();
        signed = await accounts.signIn(email, secret, { keys: true, verificationMethod: 'email-otp', unblockCode });
      }
      say(`Signed in: uid ${signed.uid}.`);
      if (!signed.verified && signed.verificationMethod === 'totp-2fa') {
        say('This account has two-step authentication: the sign-in waits for the second factor.');
        await confirmSecondFactor(client, signed, args, `Run \`tessera signin ${email}\` again to retry.`);
      } else if (!signed.verified) {
        say(`This sign-in needs confirmation (${signed.verificationReason ?? 'login'}); a code was emailed.`);
        await confirm(client, signed, args, `Run \`tessera signin ${email}\` again for a new code.`);
      }
      saveSession(args.url, signed);
      const keys = await accounts.fetchKeys(signed.keyFetchToken!, signed.unwrapBKey);
      say(args.showKeys
        ? `kA ${keys.kA}\nkB ${keys.kB}`
        : `Keys unwrapped: kA fingerprint ${fingerprint(keys.kA)}, kB fingerprint ${fingerprint(keys.kB)} (--show-keys prints them).`);
      return 0;
    }
    case 'status': {
      const saved = loadSession();
      [args.url, args.urlFrom] = [saved.url, `the saved session (${sessionFile})`];
      const status = await new TesseraClient({ baseUrl: saved.url }).sessionStatus(saved.sessionToken);
      say(`${saved.email} (uid ${status.uid}): session ${status.state}; email ${status.details.accountEmailVerified ? 'confirmed' : 'unconfirmed'}.`);
      return 0;
    }
    case 'signout': {
      const saved = loadSession();
      [args.url, args.urlFrom] = [saved.url, `the saved session (${sessionFile})`];
      await new TesseraClient({ baseUrl: saved.url }).sessionDestroy(saved.sessionToken);
      rmSync(sessionFile, { force: true });
      say('Signed out.');
      return 0;
    }
    default:
      process.stderr.write(`unknown command ${args.command}\n\n${HELP}\n`);
      return 2;
  }
}

/** The message for a failure, with what to do about it; undefined for Ctrl-C. */
function explain(err: unknown, args: Args | undefined): string | undefined {
  if (err instanceof Interrupted) return undefined;
  if (isTesseraError(err)) return `error ${err.errno} (${err.errorName ?? 'unknown'}): ${err.message}`;
  const where = args ? ` (the URL came from ${args.urlFrom})` : '';
  if (err instanceof TesseraConnectionError && err.reason === 'unreachable') {
    return `error: ${err.message}${where}.\nStart the server with \`npm start\` in the Tessera repository, or point the CLI at a running one with --url <origin> or TESSERA_URL.`;
  }
  if (err instanceof TesseraConnectionError) {
    return `error: ${err.message}${where}.\nGive the origin of a Tessera server with --url <origin> or TESSERA_URL, like ${DEFAULT_URL}.`;
  }
  if (err instanceof CliError || err instanceof PasswordPolicyError || err instanceof InputClosed) return `error: ${err.message}`;
  return `error: ${(err as Error).message ?? String(err)}`;
}

let args: Args | undefined;
Promise.resolve()
  .then(() => main((args = parseArgs(process.argv.slice(2)))))
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    const message = explain(err, args);
    if (message !== undefined) process.stderr.write(`${message}\n`);
    process.exit(err instanceof Interrupted ? 130 : 2);
  });
