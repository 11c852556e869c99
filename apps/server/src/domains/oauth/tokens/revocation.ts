import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../clock.js';
import type { Database } from '../../../storage/schema.js';
import { clientCredentials, verifyClient } from '../clients/credentials.js';
import { findClient, type OAuthClient } from '../clients/store.js';
import { findRefreshToken, revokeRefreshTokenGrant } from '../grants/store.js';
import { hashToken, HEX64 } from '../token-hash.js';
import { isJwtShaped, type AccessTokenJwts } from './access-jwt.js';
import { deleteAccessTokenByHash, findAccessTokenByHash } from './store.js';

// Revocation (RFC 7009, POST /destroy and /oauth/destroy): a client ends one of its own tokens.

/** The body of POST /destroy: the token by any of its names, and the client's credentials. */
export interface DestroyRequest {
  token?: string;
  access_token?: string;
  refresh_token?: string;
  token_type_hint?: string;
  client_id?: string;
  client_secret?: string;
}

export class TokenRevocation {
  constructor(private readonly deps: { db: Kysely<Database>; clock: Clock; accessJwts: AccessTokenJwts }) {}

  /**
   * POST /destroy: the client the credentials name, if they prove it (400/101 unknown, 400/102
   * wrong secret), revokes `token` (or the older `access_token` / `refresh_token` fields).
   */
  async destroy(body: DestroyRequest, authorization: string | undefined): Promise<void> {
    const credentials = clientCredentials(body, authorization);
    const client = verifyClient(await findClient(this.deps.db, credentials.clientId), credentials);
    const value = body.token ?? body.access_token ?? body.refresh_token;
    if (!value) throw appError('MISSING_PARAMETER', { param: 'token' });
    await this.revoke(client, value, body.token_type_hint ?? (body.refresh_token ? 'refresh_token' : undefined));
  }

  /**
   * RFC 7009: revokes the client's own access or refresh token. Unknown tokens and other clients'
   * tokens change nothing and answer the same (§2.2), so the answer tells an attacker nothing.
   * A refresh token takes the access tokens of its grant with it (§2.1); an access token goes
   * alone, its refresh token staying valid (§2.1 leaves that to the server).
   */
  async revoke(client: OAuthClient, token: string, hint?: string): Promise<void> {
    if (isJwtShaped(token)) {
      // A JWT access token: its row (keyed by jti) goes, so Tessera refuses it from now on.
      const t = await this.deps.accessJwts.find(token, this.deps.clock.now());
      if (t && t.clientId === client.id) await deleteAccessTokenByHash(this.deps.db, t.tokenHash);
      return;
    }
    if (!HEX64.test(token)) return;
    const hash = hashToken(token.toLowerCase());
    const tryAccess = async () => {
      const t = await findAccessTokenByHash(this.deps.db, hash);
      if (t && t.clientId === client.id) await deleteAccessTokenByHash(this.deps.db, hash);
      return Boolean(t);
    };
    const tryRefresh = async () => {
      const t = await findRefreshToken(this.deps.db, hash);
      if (t && t.clientId === client.id) await this.deps.db.transaction().execute((trx) => revokeRefreshTokenGrant(trx, hash, { clientId: client.id }));
      return Boolean(t);
    };
    if (hint === 'refresh_token') {
      if (!(await tryRefresh())) await tryAccess();
    } else if (!(await tryAccess())) {
      await tryRefresh();
    }
  }
}
