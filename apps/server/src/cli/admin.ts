#!/usr/bin/env node
// `npm run admin -- <command>`: operator tasks against the configured database (DATABASE_URL):
// registering OAuth clients and managing the mail bounce list.
import { randomBytes } from 'node:crypto';
import { migrationsOf } from '../app.js';
import { loadConfig } from '../config.js';
import { serverSecret } from '../crypto/dev-secret.js';
import { bounceLog } from '../domains/emails/index.js';
import { OAuthService } from '../domains/oauth/index.js';
import { JOBS_HELP, jobsCommand } from '../jobs/admin.js';
import { migrateToLatest, openStorage } from '../storage/db.js';

const HELP = `Usage: npm run admin -- <command>

  clients add --name <name> --redirect-uri <uri> [--redirect-uri <uri> …] [--id <16 hex>]
              [--scopes "<scope> …"] [--public] [--trusted] [--can-grant] [--local-redirects]
              [--image-uri <https url>] [--access-token-ttl <seconds>] [--refresh-token-ttl <seconds>]
              [--rotate-refresh-tokens] [--pairwise-subjects [--pairwise-rotation <seconds>]]
              [--jwt-access-tokens] [--resource <uri> …]
      Registers an OAuth client; prints its id (and, for a confidential client, its secret, once).
      --id registers a fixed id (browsers ship theirs, e.g. Firefox desktop 5882386c6d801776).
      --local-redirects: native apps' loopback redirect URIs match on any port (RFC 8252).
      --pairwise-subjects: the client sees a pairwise id as \`sub\`, never the uid (it may then not have
      profile, profile:write, profile:uid; default scopes profile:email); --pairwise-rotation: a new id
      every <seconds> (3600 to a year). --jwt-access-tokens: access tokens are RS256 JWTs (RFC 9068).
      --resource (repeatable): a resource URI the client may name at /token (RFC 8707), added to the
      audience of its id_tokens and JWT access tokens; any other resource is refused (invalid_target).
  clients list                                 The registered clients, one a line.
  clients rotate <id>                          A new secret (printed once); the old one keeps working
                                               until \`clients rotate <id> --finish\`.
  clients remove <id>                          Removes the client and every token issued to it.
  bounces add <email> <hard|soft|complaint>   Stop (hard, complaint) or pause (soft) mail to an address.
  bounces list <email>
  bounces clear <email>                        Allow mail to the address again.
${JOBS_HELP}

The database is DATABASE_URL (default sqlite:data/tessera.sqlite).`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Every value of a repeatable option. */
function options(args: string[], name: string): string[] {
  return args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]!] : []));
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
    await migrateToLatest(storage.db, { authSecret: serverSecret(config.server) }, migrationsOf());
    const { db } = storage;
    const oauth = new OAuthService();
    if (group === 'clients' && action === 'add') {
      const name = option(rest, '--name');
      const redirectUris = options(rest, '--redirect-uri');
      if (!name || !redirectUris.length) throw new Error('clients add needs --name and --redirect-uri');
      const publicClient = rest.includes('--public');
      const id = (option(rest, '--id') ?? randomBytes(8).toString('hex')).toLowerCase();
      if (await oauth.findClient(db, id)) throw new Error(`a client with id ${id} is already registered`);
      const secret = publicClient ? null : randomBytes(32).toString('hex');
      const pairwise = rest.includes('--pairwise-subjects');
      const seconds = (flag: string) => {
        const raw = option(rest, flag);
        if (raw === undefined) return undefined;
        if (!/^\d+$/.test(raw)) throw new Error(`${flag} takes a number of seconds`);
        return Number(raw);
      };
      await oauth.registerClient(db, {
        id, name, imageUri: option(rest, '--image-uri') ?? '', redirectUris, publicClient, trusted: rest.includes('--trusted'),
        canGrant: rest.includes('--can-grant'), secret, localRedirects: rest.includes('--local-redirects'),
        // A pairwise client may not have `profile` (it would show the uid): its default is the address only.
        allowedScopes: (option(rest, '--scopes') ?? (pairwise ? 'profile:email' : 'profile')).split(/\s+/).filter(Boolean),
        accessTokenTtlSeconds: seconds('--access-token-ttl'), refreshTokenTtlSeconds: seconds('--refresh-token-ttl'),
        rotateRefreshTokens: rest.includes('--rotate-refresh-tokens'), pairwiseSubjects: pairwise,
        pairwiseRotationSeconds: seconds('--pairwise-rotation'), jwtAccessTokens: rest.includes('--jwt-access-tokens'),
        allowedResources: options(rest, '--resource'), createdAt: Date.now(),
      });
      process.stdout.write(`client_id ${id}\n${secret ? `client_secret ${secret}   (shown once; only its hash is stored)\n` : ''}`);
      return 0;
    }
    if (group === 'clients' && action === 'list') {
      const clients = await oauth.listClients(db);
      for (const c of clients) {
        const flags = [c.publicClient ? 'public' : 'confidential', c.trusted && 'trusted', c.canGrant && 'can-grant', c.localRedirects && 'local-redirects',
          c.hashedSecretPrevious && 'rotating', c.rotateRefreshTokens && 'rotate-refresh-tokens',
          c.pairwiseSubjects && `pairwise-subjects${c.pairwiseRotationSeconds ? `(rotation ${c.pairwiseRotationSeconds}s)` : ''}`, c.jwtAccessTokens && 'jwt-access-tokens'].filter(Boolean).join(' ');
        process.stdout.write(`${c.id}  ${c.name}  ${c.redirectUris.join(',')}  ${flags}  [${c.allowedScopes.join(' ')}]  access ${c.accessTokenTtlSeconds}s${c.allowedResources.length ? `  resources ${c.allowedResources.join(',')}` : ''}\n`);
      }
      if (!clients.length) process.stdout.write('no OAuth clients registered (add one with `npm run admin -- clients add --name <name> --redirect-uri <uri>`)\n');
      return 0;
    }
    if (group === 'clients' && action === 'rotate') {
      const id = rest[0];
      if (!id) throw new Error('clients rotate needs a client id');
      if (rest.includes('--finish')) {
        if (!(await oauth.finishRotation(db, id))) throw new Error(`no client ${id}`);
        process.stdout.write(`client ${id}: the previous secret no longer works\n`);
        return 0;
      }
      const secret = await oauth.rotateSecret(db, id);
      if (!secret) throw new Error(`no confidential client ${id}`);
      process.stdout.write(`client_secret ${secret}   (shown once; the previous secret works until \`clients rotate ${id} --finish\`)\n`);
      return 0;
    }
    if (group === 'clients' && action === 'remove') {
      const id = rest[0];
      if (!id) throw new Error('clients remove needs a client id');
      if (!(await oauth.removeClient(db, id))) throw new Error(`no client ${id}`);
      process.stdout.write(`removed client ${id} and its tokens\n`);
      return 0;
    }
    if (group === 'jobs') {
      const code = await jobsCommand(db, action, rest, (text) => process.stdout.write(text));
      if (code === 0) return 0;
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
