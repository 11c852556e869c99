import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeader, deriveTokenKeys } from '@tessera/protocol';
import { createApp, DOMAINS, migrationsOf } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, openStorage } from '../src/storage/db.js';
import type { AnyManifest } from '../src/manifest.js';
import { createTestServer, testSigningKey, verifiedAccount, type TestServer } from './harness.js';
import { rawRequest } from './helpers.js';
import { fixtureNotesDomain } from './fixtures/notes-domain/index.js';

// Issue 23: a domain arrives by one line in the domain list. The fixture domain
// (fixtures/notes-domain) contributes a route, a config key, a rate-limit rule, a security event,
// an email and a table; composed with DOMAINS each shows up in OpenAPI and in the portal's
// generated reference pages, and without it none does. Then a server composed with it serves it.

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const withFixture: readonly AnyManifest[] = [...DOMAINS, fixtureNotesDomain];

interface Generator {
  outputs(options: { root: string; domains?: readonly AnyManifest[] }): Promise<{ path: string; content: string }[]>;
}
const generator = (name: string) => import(join(root, 'scripts/generate', `${name}.mjs`)) as Promise<Generator>;

/** The generated file `path` of generator `name`, for a domain list. */
async function page(name: string, path: string, domains: readonly AnyManifest[]): Promise<string> {
  const outputs = await (await generator(name)).outputs({ root, domains });
  const out = outputs.find((o) => o.path === path);
  if (!out) throw new Error(`${name} wrote no ${path}`);
  return out.content;
}

describe('a domain added by one line in the composition', () => {
  const where = [
    { what: 'its route, in OpenAPI', generator: 'openapi', path: 'openapi.json', marker: '/v1/fixture/notes' },
    { what: 'its config key, on the configuration page', generator: 'portal-config', path: 'apps/portal/docs/_generated/configuration.md', marker: 'FIXTURE_NOTES_MAX_LENGTH' },
    { what: 'its config key, in README', generator: 'portal-config', path: 'README.md', marker: 'FIXTURE_NOTES_MAX_LENGTH' },
    { what: 'its rate-limit rule and the route counting it, on the rate-limit page', generator: 'portal-rate-limits', path: 'apps/portal/docs/_generated/rate-limits.md', marker: 'fixtureNoteAdd' },
    { what: 'its security event, on the security-events page', generator: 'portal-security-events', path: 'apps/portal/docs/_generated/security-events.md', marker: 'account.fixture_note_added' },
    { what: 'its email, on the emails page', generator: 'portal-emails', path: 'apps/portal/docs/_generated/emails.md', marker: 'fixtureNoteAdded' },
    { what: 'its table with its notes, on the database page', generator: 'portal-database', path: 'apps/portal/docs/_generated/database-structure.md', marker: 'fixture_notes' },
  ];

  it.each(where)('contributes $what, and removing the line removes it', async ({ generator: name, path, marker }) => {
    expect(await page(name, path, withFixture)).toContain(marker);
    expect(await page(name, path, DOMAINS)).not.toContain(marker);
  }, 60_000);

  it('documents the table\'s columns from the domain\'s own tables.ts', async () => {
    const content = await page('portal-database', 'apps/portal/docs/_generated/database-structure.md', withFixture);
    expect(content).toContain('The account the note belongs to.');
    expect(content).toContain('9001_add_fixture_notes');
  }, 60_000);
});

describe('a server composed with the fixture domain', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ domains: withFixture, env: { FIXTURE_NOTES_MAX_LENGTH: '20' } });
  }, 60_000);
  afterAll(async () => t?.close());

  it('serves its route with its config, table, security event, email and rate-limit rule', async () => {
    const account = await verifiedAccount(t);
    const authorization = bearerHeader('sessionToken', deriveTokenKeys('sessionToken', account.sessionToken).tokenId);
    const add = (text: string) => rawRequest(t.url, 'POST', '/fixture/notes', { body: { text }, authorization });

    // The config key reaches the route's schema: 21 characters are one too many.
    expect((await add('x'.repeat(21))).status).toBe(400);
    const first = await add('first note');
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(1);
    const row = await (t.storage.db as never as Kysely<{ fixture_notes: { uid: string; text: string } }>)
      .selectFrom('fixture_notes').selectAll().where('uid', '=', account.uid).execute();
    expect(row.map((r) => r.text)).toEqual(['first note']);

    const mail = await t.mail.waitFor(account.email, 'fixtureNoteAdded');
    expect(mail.subject).toBe('A note was added to your account');
    const events = await rawRequest(t.url, 'GET', '/securityEvents', { authorization });
    expect((events.body as unknown as { name: string }[]).map((e) => e.name)).toContain('account.fixture_note_added');

    // Its rule: two per account per 15 minutes (the schema-refused one did not count).
    expect((await add('second')).status).toBe(200);
    const blocked = await add('third');
    expect(blocked.status).toBe(429);
    expect(blocked.body.errno).toBe(114);
  }, 60_000);
});

describe('composition refuses a list that breaks the floors', () => {
  /** Builds an app over an in-memory database from `domains`; resolves to the error, if any. */
  async function compose(domains: readonly AnyManifest[]): Promise<Error | null> {
    const storage = openStorage('sqlite::memory:');
    try {
      await migrateToLatest(storage.db, {}, migrationsOf(domains));
      const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORTAL_DIR: '/nonexistent', AUTH_SECRET: 'a'.repeat(64) }, domains);
      const app = await createApp({ config, storage, logger: false, signingKey: testSigningKey(), domains });
      await app.close();
      return null;
    } catch (err) {
      return err as Error;
    } finally {
      await storage.destroy();
    }
  }

  it('builds the server\'s own list', async () => {
    expect(await compose(DOMAINS)).toBeNull();
  }, 60_000);

  it('refuses a domain listed below a domain of a higher floor', async () => {
    const swapped = DOMAINS.filter((d) => d.name !== 'oauth');
    swapped.splice(swapped.findIndex((d) => d.name === 'accounts'), 0, DOMAINS.find((d) => d.name === 'oauth')!);
    expect((await compose(swapped))?.message).toMatch(/domain accounts \(sign-in methods\) is composed after oauth \(relying parties\)/);
  }, 60_000);

  it('refuses a domain that needs a service of a higher floor (it declares a port instead)', async () => {
    const upward = DOMAINS.map((d) => (d.name === 'accounts' ? { ...d, needs: [...(d.needs ?? []), 'oauth'] } : d));
    expect((await compose(upward))?.message).toMatch(/domain accounts \(sign-in methods\) needs oauth of oauth \(relying parties\), a floor above/);
  }, 60_000);

  it('refuses a domain that reads a service it did not name in needs', async () => {
    const sneaky = DOMAINS.map((d) => (d.name === 'pages' ? { ...d, create: (ctx: Parameters<typeof d.create>[0]) => (void (ctx.services as never as { oauth: unknown }).oauth, d.create(ctx as never)) } : d));
    expect((await compose(sneaky as readonly AnyManifest[]))?.message).toMatch(/domain pages reads the oauth service without naming it in needs/);
  }, 60_000);
});
