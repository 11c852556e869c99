import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../clock.js';
import type { Database } from '../../../storage/schema.js';
import type { AccountRecords } from '../../account-core/index.js';
import { verifyClient, type ClientCredentials } from '../clients/credentials.js';
import { findClient, type OAuthClient } from '../clients/store.js';
import { findRefreshToken } from '../grants/store.js';
import { hashToken, HEX64 } from '../token-hash.js';
import type { AccessTokenJwts } from './access-jwt.js';
import type { OAuthReads } from './cached-reads.js';
import type { AccessToken } from './store.js';

// Introspection (RFC 7662): what a relying party learns about its own access and refresh tokens.

export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  token_type?: 'access_token' | 'refresh_token';
  iat?: number;
  exp?: number;
  sub?: string;
  iss?: string;
  jti?: string;
}

export interface TokenReadsDeps {
  db: Kysely<Database>;
  clock: Clock;
  records: AccountRecords;
  issuer: string;
  /** Finds opaque and JWT access tokens alike; its `keys` (the /jwks slots) verify id_tokens too. */
  accessJwts: AccessTokenJwts;
  /** The client and access-token reads of introspection, cached briefly (cached-reads.ts). */
  reads: OAuthReads;
  /** OAUTH_PPID_SECRET: keys the markers pairwise clients get instead of account timestamps. */
  ppidSecret: string;
}

const seconds = (ms: number) => Math.floor(ms / 1000);
// One-shot crypto.hash: a Hash object per call costs more than the digest of 64 characters.
const jti = (token: string) => hash('sha256', Buffer.from(token.toLowerCase(), 'latin1'), 'hex');

export class TokenIntrospection {
  constructor(private readonly deps: TokenReadsDeps) {}

  /** An opaque or JWT access token, live (not expired, not revoked). */
  private liveAccessToken(token: string): Promise<AccessToken | null> {
    return this.deps.accessJwts.find(token, this.deps.clock.now());
  }

  private async liveRefreshToken(token: string) {
    if (!HEX64.test(token)) return null;
    const t = await findRefreshToken(this.deps.db, hashToken(token.toLowerCase()));
    return t && (t.expiresAt === 0 || t.expiresAt > this.deps.clock.now()) ? t : null;
  }

  /**
   * RFC 7662 for the client `credentials` name, checked (400/101 unknown, 400/102 wrong secret)
   * before anything about the token is used: its own tokens only (another client's token is as
   * inactive as an unknown one). Times are seconds, as the RFC says. An opaque token looked up as
   * an access token first is read in the same statement as the client, or both come from the
   * cache of recent reads (cached-reads.ts); the secret and the expiry are checked either way.
   */
  async introspect(credentials: ClientCredentials, token: string, hint?: string): Promise<Introspection> {
    const order = hint === 'refresh_token' ? ['refresh', 'access'] : ['access', 'refresh'];
    let client: OAuthClient;
    let access: AccessToken | null | undefined;
    if (order[0] === 'access' && HEX64.test(token)) {
      const now = this.deps.clock.now();
      const read = await this.deps.reads.clientWithAccessToken(credentials.clientId, hashToken(token), now);
      client = verifyClient(read.client, credentials);
      access = read.token && read.token.expiresAt > now ? read.token : null;
    } else {
      client = verifyClient(await findClient(this.deps.db, credentials.clientId), credentials);
    }
    for (const kind of order) {
      if (kind === 'access') {
        const t = access === undefined ? await this.liveAccessToken(token) : access;
        if (t && t.clientId === client.id) {
          return {
            active: true, scope: t.scope.join(' '), client_id: t.clientId, token_type: 'access_token', iat: seconds(t.createdAt), exp: seconds(t.expiresAt),
            sub: t.subject, iss: this.deps.issuer, jti: t.jti ?? jti(token),
          };
        }
      } else {
        const t = await this.liveRefreshToken(token);
        if (t && t.clientId === client.id) {
          return {
            active: true, scope: t.scope.join(' '), client_id: t.clientId, token_type: 'refresh_token', iat: seconds(t.createdAt),
            // A refresh token keeps no pairwise id (each refresh may name its seed): a pairwise client is shown no sub at all.
            ...(t.expiresAt ? { exp: seconds(t.expiresAt) } : {}), ...(client.pairwiseSubjects ? {} : { sub: t.uid }), iss: this.deps.issuer, jti: jti(token),
          };
        }
      }
    }
    return { active: false };
  }
}
