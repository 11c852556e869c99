#!/usr/bin/env node
// `npm run admin -- <command>`: operator tasks against the configured database (DATABASE_URL):
// registering OAuth clients and managing the mail bounce list.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config.js';
import { serverSecret } from '../crypto/dev-secret.js';
import { bounceLog } from '../domains/emails/index.js';
import { OAuthService } from '../domains/oauth/index.js';
import { migrateToLatest, openStorage } from '../storage/db.js';

const HELP = `Usage: npm run admin -- <command>

  clients add --name <name> --redirect-uri <uri> [--scopes "<scope> …"] [--public] [--trusted]
      Registers an OAuth client; prints its id (and, for a confidential client, its secret, once).
  clients list                                 The registered clients, one a line.
  bounces add <email> <hard|soft|complaint>   Stop (hard, complaint) or pause (soft) mail to an address.
  bounces list <email>
  bounces clear <email>                        Allow mail to the address again.

The database is DATABASE_URL (default sqlite:data/tessera.sqlite).`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: string[]): Promise<number> {
  const [group, action, ...rest] = args;
  if (!group || group === '-h' || group === '--help') {
    process.stdout.write(`${HELP}\n`);
    return group ? 0 : 1;
  }
  const config = loadConfig();
  const storage = openStorage(config.server.databaseUrl, { poolSize: 1 });
  try {
    await migrateToLatest(storage.db, { authSecret: serverSecret(config.server) });
    const { db } = storage;
    if (group === 'clients' && action === 'add') {
      const name = option(rest, '--name');
      const redirectUri = option(rest, '--redirect-uri');
      if (!name || !redirectUri) throw new Error('clients add needs --name and --redirect-uri');
      new URL(redirectUri);
      const publicClient = rest.includes('--public');
      const id = randomBytes(8).toString('hex');
      const secret = publicClient ? null : randomBytes(32).toString('hex');
      await new OAuthService().registerClient(db, {
        id, name, imageUri: '', redirectUri, publicClient, trusted: rest.includes('--trusted'), canGrant: false, secret,
        allowedScopes: (option(rest, '--scopes') ?? 'profile').split(/\s+/).filter(Boolean), createdAt: Date.now(),
      });
      process.stdout.write(`client_id ${id}\n${secret ? `client_secret ${secret}   (shown once; only its hash is stored)\n` : ''}`);
      return 0;
    }
    if (group === 'clients' && action === 'list') {
      const clients = await new OAuthService().listClients(db);
      for (const c of clients) process.stdout.write(`${c.id}  ${c.name}  ${c.redirectUri}  ${c.publicClient ? 'public' : 'confidential'}${c.trusted ? ' trusted' : ''}  [${c.allowedScopes.join(' ')}]\n`);
      if (!clients.length) process.stdout.write('no OAuth clients registered (add one with `npm run admin -- clients add --name <name> --redirect-uri <uri>`)\n');
      return 0;
    }
    if (group === 'bounces') {
      const email = rest[0];
      if (!email || !action) throw new Error('bounces needs an action and an email');
      if (action === 'add') {
        const type = rest[1];
        if (type !== 'hard' && type !== 'soft' && type !== 'complaint') throw new Error('the type is hard, soft or complaint');
        await bounceLog(db).record(email, type, 'recorded by an operator', Date.now());
        process.stdout.write(`recorded ${type} for ${email}\n`);
        return 0;
      }
      if (action === 'list') {
        const rows = await bounceLog(db).list(email);
        for (const r of rows) process.stdout.write(`${new Date(r.createdAt).toISOString()}  ${r.type}  ${r.detail ?? ''}\n`);
        if (!rows.length) process.stdout.write('no bounces\n');
        return 0;
      }
      if (action === 'clear') {
        const cleared = await bounceLog(db).clear(email);
        process.stdout.write(`cleared ${cleared} ${cleared === 1 ? 'entry' : 'entries'} for ${email}\n`);
        return 0;
      }
    }
    process.stderr.write(`unknown command: ${args.join(' ')}\n\n${HELP}\n`);
    return 1;
  } finally {
    await storage.destroy();
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(2);
});
