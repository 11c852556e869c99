import type { Kysely } from 'kysely';
import type { TokenType } from '@tessera/protocol';
import { TokenSecrets } from '../../crypto/token-secrets.js';
import type { MigrationContext } from './index.js';

// Issue 9, hole 4: a read of the token tables must not yield live credentials. The five onepw
// token tables stop storing the token id (a Bearer credential by itself) and the Hawk authKey:
// - token_id → id_hash: HMAC of the id under a key derived from AUTH_SECRET (crypto/token-secrets.ts);
// - auth_key → sealed_auth_key: authKey XOR a pad that needs the secret and the unstored id;
// - key_fetch_tokens.session_token_id → session_id_hash: the session's id_hash;
// - hawk_only: 1 once the token has been used with Hawk (Bearer is refused for it from then on).
// Existing rows are rekeyed here, which needs the secret: storage/db.ts passes it in `context`.
// What cannot be rekeyed is dropped: an emailed code is hashed with its token's id, and the
// server never knew the code, so pending session codes are voided (a resend sends a new one) and
// password forgot tokens are deleted (the reset starts again). Sessions and the other tokens work on.

const TABLES: Record<string, TokenType> = {
  session_tokens: 'sessionToken',
  key_fetch_tokens: 'keyFetchToken',
  account_reset_tokens: 'accountResetToken',
  password_forgot_tokens: 'passwordForgotToken',
  password_change_tokens: 'passwordChangeToken',
};
/** Marks rows not yet rekeyed while this migration runs (ids and their HMACs look alike). */
const PENDING = 'rekey_pending';
const PAGE = 500;

// Migrations see the database untyped: the schema of this step is spelt out where it is read.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Db = Kysely<any>;

async function countRows(db: Db): Promise<number> {
  let total = 0;
  for (const table of Object.keys(TABLES)) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    total += Number(row.n);
  }
  return total;
}

async function rekey(db: Db, secrets: TokenSecrets): Promise<void> {
  // Void what is bound to raw ids and cannot be recomputed without the emailed code.
  await db.deleteFrom('password_forgot_tokens').execute();
  await db.updateTable('session_tokens').set({ code_hash: null, code_expires_at: null, code_tries: null }).where('code_hash', 'is not', null).execute();
  for (const [table, type] of Object.entries(TABLES)) {
    await db.updateTable(table).set({ [PENDING]: 1 }).execute();
    for (;;) {
      const rows = await db
        .selectFrom(table)
        .select(['id_hash', 'sealed_auth_key', ...(table === 'key_fetch_tokens' ? ['session_id_hash'] : [])])
        .where(PENDING, '=', 1)
        .limit(PAGE)
        .execute() as { id_hash: string; sealed_auth_key: string; session_id_hash?: string | null }[];
      if (!rows.length) break;
      for (const row of rows) {
        // Before this migration the columns held the raw id and authKey.
        const id = row.id_hash;
        const set: Record<string, unknown> = {
          id_hash: secrets.handle(type, id), sealed_auth_key: secrets.sealAuthKey(type, id, row.sealed_auth_key), [PENDING]: null,
        };
        if (row.session_id_hash) set.session_id_hash = secrets.handle('sessionToken', row.session_id_hash);
        await db.updateTable(table).set(set).where('id_hash', '=', id).execute();
      }
    }
  }
}

export async function up(db: Db, context: MigrationContext = {}): Promise<void> {
  const rows = await countRows(db);
  if (rows > 0 && !context.authSecret) {
    throw new Error(`migration 0005_key_token_ids rekeys ${rows} stored tokens and needs the server secret: run it through the server or the admin CLI with AUTH_SECRET (or the development data folder) in place`);
  }
  for (const table of Object.keys(TABLES)) {
    await db.schema.alterTable(table).renameColumn('token_id', 'id_hash').execute();
    await db.schema.alterTable(table).renameColumn('auth_key', 'sealed_auth_key').execute();
    await db.schema.alterTable(table).addColumn('hawk_only', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    if (rows > 0) await db.schema.alterTable(table).addColumn(PENDING, 'integer').execute();
  }
  await db.schema.alterTable('key_fetch_tokens').renameColumn('session_token_id', 'session_id_hash').execute();
  if (rows === 0) return;

  const secrets = new TokenSecrets(context.authSecret!);
  // PostgreSQL and SQLite run every migration in one transaction already; MySQL commits each DDL
  // statement, so the rewrite of the rows gets a transaction of its own there: all or none.
  if (db.isTransaction) await rekey(db, secrets);
  else await db.transaction().execute((trx) => rekey(trx, secrets));
  for (const table of Object.keys(TABLES)) await db.schema.alterTable(table).dropColumn(PENDING).execute();
}

/** Back to raw-id columns. Keyed rows cannot be turned back into ids: every token is deleted (everyone signs in again). */
export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('key_fetch_tokens').renameColumn('session_id_hash', 'session_token_id').execute();
  for (const table of Object.keys(TABLES)) {
    await db.deleteFrom(table).execute();
    await db.schema.alterTable(table).dropColumn('hawk_only').execute();
    await db.schema.alterTable(table).renameColumn('sealed_auth_key', 'auth_key').execute();
    await db.schema.alterTable(table).renameColumn('id_hash', 'token_id').execute();
  }
}
