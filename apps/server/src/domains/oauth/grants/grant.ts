import type { Kysely } from 'kysely';
import type { Clock } from '../../../clock.js';
import type { RequestContext } from '../../../platform/request-context.js';
import type { Database } from '../../../storage/schema.js';
import type { Executor } from '../../../storage/executor.js';
import { sessionAal, type SessionWithAccount } from '../../sessions/index.js';
import type { OAuthClient } from '../clients/store.js';
import type { TokenIssuer } from './issuer.js';
import type { RefreshReuse } from './reuse.js';
import type { RefreshToken } from './store.js';

// The value every grant type ends with, and what a grant module is given. A code, a refresh token
// and a session each turn into one `Grant`; `TokenIssuer` (issuer.ts) writes and signs its tokens.

/** What the person authorized the client to do, and how they had signed in: what every token issued from it carries. */
export interface Grant {
  uid: string;
  clientId: string;
  scope: string[];
  /** When the person signed in (ms). */
  authAt: number;
  /** How that sign-in was authenticated (`pwd email`, `pwd otp`), as the id_token's `amr`. */
  amr: string[];
  aal: number;
  /** The authorization grant's id, carried by every token minted from it (null for tokens older than grant ids). */
  grantId: string | null;
}

/** A grant as one token request issues it: whom the client is shown, for which resource, for how long. */
export interface Issuance {
  grant: Grant;
  /** The `sub` the client is shown: the uid, or its pairwise id for the account. */
  subject: string;
  /** RFC 8707: added to the audience of the id_token and of a JWT access token. */
  resource?: string | undefined;
  /** OpenID Connect: the authorization request's nonce, copied into the id_token. */
  nonce: string | null;
  /** Seconds the access token lives. */
  ttl: number;
  now: number;
  /** The scoped-key bundle the authorization request carried, returned once. */
  keysJwe?: string | undefined;
}

/** The body of POST /token and /oauth/token, as the wire names it. */
export interface TokenRequest {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  code?: string;
  code_verifier?: string;
  redirect_uri?: string;
  refresh_token?: string;
  scope?: string;
  ttl?: number;
  access_type?: string;
  /** Token exchange (RFC 8693): the refresh token to exchange and its type. */
  subject_token?: string;
  subject_token_type?: string;
  /** Pairwise clients: 0–1024 (default: the authorization request's, else 0). */
  ppid_seed?: number;
  /** RFC 8707: an absolute URI without fragment, added to the id_token's and JWT access token's `aud`. */
  resource?: string;
}

/** What a token request issued, as a domain value (the door shapes the wire: grants/routes.ts tokenReply). */
export interface IssuedTokens {
  accessToken: string;
  scope: string[];
  /** Seconds the access token lives. */
  expiresIn: number;
  /** When the person signed in (ms). */
  authAt: number;
  refreshToken?: string;
  /** With scope `openid`. */
  idToken?: string;
  /** The scoped-key bundle the authorization request carried, once. */
  keysJwe?: string;
  /** Token exchange only (RFC 8693 §2.2.1): what `accessToken` is. */
  issuedTokenType?: string;
}

/** What every grant module shares (built once by the domain). */
export interface GrantContext {
  db: Kysely<Database>;
  clock: Clock;
  issuer: TokenIssuer;
  reuse: RefreshReuse;
  /** Scopes that carry a scoped key (OAUTH_KEY_BEARING_SCOPES): a token exchange never adds one. */
  keyBearingScopes: readonly string[];
  /** Whether the account has two-step authentication on (its required AAL is 2): a token exchange of an AAL1 grant is then refused. */
  secondFactor: { required(db: Executor, uid: string): Promise<boolean> };
}

/** One token request, its client authenticated (and its `resource` checked) by the dispatcher (service.ts). */
export interface GrantRequest {
  client: OAuthClient;
  body: TokenRequest;
  /** The Hawk-signed session of POST /oauth/token, when there is one. */
  session: SessionWithAccount | null;
  ctx?: Pick<RequestContext, 'ip'> | undefined;
  /** The refresh grant: the token as already read with the client (null: none); absent, it is read. */
  refreshRead?: RefreshToken | null;
}

/** A grant type: checks what it is given, writes its tokens, answers them. */
export type GrantType = (context: GrantContext, request: GrantRequest) => Promise<IssuedTokens>;

/** The grant fields of a code or refresh token, under the grant id its tokens carry. */
export function grantOf(source: Omit<Grant, 'grantId'>, grantId: string | null): Grant {
  return { uid: source.uid, clientId: source.clientId, scope: source.scope, authAt: source.authAt, amr: source.amr, aal: source.aal, grantId };
}

/**
 * How a confirmed session was authenticated, as the id_token's `amr` and `acr` and the access token
 * keep it: the password and the email (AAL1), or the password and a second factor (AAL2: an app's
 * TOTP code, a backup code or a recovery phone's code — each a one-time password, RFC 8176 `otp`).
 */
export function authenticationOf(session: SessionWithAccount): { amr: string[]; aal: 1 | 2 } {
  const aal = sessionAal(session);
  return { aal, amr: aal === 2 ? ['pwd', 'otp'] : ['pwd', 'email'] };
}

/** The access token's lifetime: what the request asks, capped by the client's. */
export function ttlSeconds(client: OAuthClient, asked: number | undefined): number {
  return Math.min(asked ?? client.accessTokenTtlSeconds, client.accessTokenTtlSeconds);
}
