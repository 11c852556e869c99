#!/usr/bin/env node
// `tessera`: a small command line over the SDK, so a newcomer can create an account, confirm it,
// sign in and unwrap the keys against a running server without writing code.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { TesseraAccounts, TesseraClient, isTesseraError, type SignedIn } from './index.js';

const HELP = `tessera — the Tessera account API from the command line

Usage: tessera [options] <command>

Commands:
  signup <email>     create an account (v2 password), then confirm it with the emailed code
  signin <email>     sign in, confirm the sign-in if asked, fetch and unwrap the keys
  status             the saved session's status
  signout            destroy the saved session

Options:
  --url <origin>     server origin (default $TESSERA_URL or http://localhost:9000)
  --password <pw>    the password (default $TESSERA_PASSWORD, else asked)
  --code <digits>    the emailed confirmation code (default: asked)
  --show-keys        print kA and kB themselves, not only their fingerprints
  -h, --help         this text

The emailed code is in the server's log and in data/outbox/ when the server runs without SMTP.
The session is saved (mode 0600) in $XDG_CONFIG_HOME/tessera/session.json.`;

interface Args {
  command?: string;
  email?: string;
  url: string;
  password?: string;
  code?: string;
  showKeys: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { url: process.env.TESSERA_URL ?? 'http://localhost:9000', showKeys: false };
  if (process.env.TESSERA_PASSWORD) args.password = process.env.TESSERA_PASSWORD;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') args.command = 'help';
    else if (a === '--url') args.url = argv[++i] ?? args.url;
    else if (a === '--password') args.password = argv[++i];
    else if (a === '--code') args.code = argv[++i];
    else if (a === '--show-keys') args.showKeys = true;
    else rest.push(a);
  }
  args.command ??= rest[0];
  if (rest[1]) args.email = rest[1];
  return args;
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
    throw new Error('no saved session: run `tessera signin <email>` first');
  }
}

// One reader for the whole run: answers may arrive together on a pipe.
let reader: ReturnType<typeof createInterface> | undefined;
const lines: string[] = [];
const waiting: ((line: string) => void)[] = [];
function ask(question: string): Promise<string> {
  if (!reader) {
    reader = createInterface({ input: process.stdin, terminal: false });
    reader.on('line', (line) => (waiting.length ? waiting.shift()!(line.trim()) : lines.push(line.trim())));
  }
  process.stderr.write(question);
  if (lines.length) return Promise.resolve(lines.shift()!);
  return new Promise((resolve) => waiting.push(resolve));
}

const fingerprint = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex').slice(0, 16);

async function confirm(client: TesseraClient, signed: SignedIn, code: string | undefined): Promise<void> {
  const entered = code ?? (await ask('Confirmation code from the email: '));
  await client.sessionVerifyCode(signed.sessionToken, { code: entered });
  process.stdout.write('Confirmed.\n');
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args.command || args.command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return args.command ? 0 : 1;
  }
  const client = new TesseraClient({ baseUrl: args.url });
  const accounts = new TesseraAccounts(client);
  const needEmail = () => {
    if (!args.email) throw new Error(`usage: tessera ${args.command} <email>`);
    return args.email;
  };
  const password = async () => args.password ?? (await ask('Password: '));

  switch (args.command) {
    case 'signup': {
      const email = needEmail();
      const signed = await accounts.signUp(email, await password(), { verificationMethod: 'email-otp' });
      process.stdout.write(`Account created: uid ${signed.uid}. A 6-digit code was emailed to ${email}.\n`);
      await confirm(client, signed, args.code);
      saveSession(args.url, signed);
      return 0;
    }
    case 'signin': {
      const email = needEmail();
      const secret = await password();
      let signed: SignedIn;
      try {
        signed = await accounts.signIn(email, secret, { keys: true, verificationMethod: 'email-otp' });
      } catch (err) {
        // Rate limiting paused sign-ins for this account here: an emailed unblock code lifts it.
        if (!isTesseraError(err, 'REQUEST_BLOCKED')) throw err;
        await accounts.sendUnblockCode(email);
        process.stdout.write(`Sign-in blocked after too many attempts; an unblock code was emailed to ${email}.\n`);
        const unblockCode = await ask('Unblock code from the email: ');
        signed = await accounts.signIn(email, secret, { keys: true, verificationMethod: 'email-otp', unblockCode });
      }
      process.stdout.write(`Signed in: uid ${signed.uid}.\n`);
      if (!signed.verified) {
        process.stdout.write(`This sign-in needs confirmation (${signed.verificationReason ?? 'login'}); a code was emailed.\n`);
        await confirm(client, signed, args.code);
      }
      saveSession(args.url, signed);
      const keys = await accounts.fetchKeys(signed.keyFetchToken!, signed.unwrapBKey);
      process.stdout.write(args.showKeys
        ? `kA ${keys.kA}\nkB ${keys.kB}\n`
        : `Keys unwrapped: kA fingerprint ${fingerprint(keys.kA)}, kB fingerprint ${fingerprint(keys.kB)} (--show-keys prints them).\n`);
      return 0;
    }
    case 'status': {
      const saved = loadSession();
      const status = await new TesseraClient({ baseUrl: saved.url }).sessionStatus(saved.sessionToken);
      process.stdout.write(`${saved.email} (uid ${status.uid}): session ${status.state}; email ${status.details.accountEmailVerified ? 'confirmed' : 'unconfirmed'}.\n`);
      return 0;
    }
    case 'signout': {
      const saved = loadSession();
      await new TesseraClient({ baseUrl: saved.url }).sessionDestroy(saved.sessionToken);
      rmSync(sessionFile, { force: true });
      process.stdout.write('Signed out.\n');
      return 0;
    }
    default:
      process.stderr.write(`unknown command ${args.command}\n\n${HELP}\n`);
      return 1;
  }
}

main()
  .then((code) => {
    reader?.close();
    process.exit(code);
  })
  .catch((err: unknown) => {
    reader?.close();
    if (isTesseraError(err)) process.stderr.write(`error ${err.errno} (${err.errorName ?? 'unknown'}): ${err.message}\n`);
    else process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(2);
  });
