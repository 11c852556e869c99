import { routesOf, type Domain } from '../../domain.js';
import type { TokenStrategy } from '../../http/auth.js';
import type { Clock } from '../../clock.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { WriteEpoch } from '../../storage/write-epoch.js';
import type { Executor } from '../../storage/executor.js';
import { loadPublicJwk, type SigningKey } from '../../platform/keys/index.js';
import type { AccountRecords } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import type { OAuthConfig } from './config.js';
import { installCors } from './cors.js';
import { discoveryRoutes } from './discovery.js';
import { authorizationRoutes } from './authorization/routes.js';
import { AuthorizationService } from './authorization/service.js';
import { clientRoutes } from './clients/routes.js';
import { installFormParser } from './form-body.js';
import { TokenIssuer } from './grants/issuer.js';
import { RefreshReuse } from './grants/reuse.js';
import { grantRoutes } from './grants/routes.js';
import { GrantsService } from './grants/service.js';
import { deleteGrantsOf, deletePublicGrantsOf } from './grants/store.js';
import { keyDataRoutes } from './scoped-key-data.js';
import { OAuthService } from './service.js';
import { AccessTokenJwts } from './tokens/access-jwt.js';
import { authorizedClientRoutes } from './tokens/authorized-clients.js';
import { OAuthReads } from './tokens/cached-reads.js';
import { TokenClaims } from './tokens/claims.js';
import { TokenIntrospection } from './tokens/introspection.js';
import { TokenRevocation } from './tokens/revocation.js';
import { tokenRoutes } from './tokens/routes.js';
import { deleteAccessTokensOf, type AccessToken } from './tokens/store.js';
export { oauthDomain } from './manifest.js';

// The OAuth 2.0 / OpenID Connect server, in four parts: clients/ (the registry: GET /client/{id},
// the start-up file, the admin command, client authentication), authorization/ (POST /authorization:
// a code once the door's steps passed), grants/ (POST /token: one module per grant type over one
// Grant value, one TokenIssuer) and tokens/ (access tokens and the bearer strategy, introspection,
// revocation, userinfo). Password changes, resets and account deletion revoke the account's tokens.

export { OAuthService } from './service.js';
export type { ClientInfo } from './clients/registry.js';
export type { OAuthClient } from './clients/store.js';
export type { AccessToken } from './tokens/store.js';
export { ClientRegistrationError, redirectUriMatches, type ClientRegistration } from './clients/registration.js';
export { readClientsFile, parseClientsFile } from './clients/file.js';
export { oauthConfig, type OAuthConfig } from './config.js';

declare module '../../http/auth.js' {
  interface StrategyCredentials {
    oauthToken: AccessToken;
  }
}

/** What a browser relying party on another origin calls. */
const CORS_PATHS = ['/oauth/token', '/token', '/introspect', '/destroy', '/oauth/destroy', '/userinfo', '/profile', '/jwks', '/verify'];

export interface OAuthDomainDeps {
  db: Kysely<Database>;
  clock: Clock;
  signingKey: SigningKey;
  /** The OpenID issuer: the public URL without a trailing slash. */
  issuer: string;
  records: AccountRecords;
  config: OAuthConfig;
  /** OAUTH_PPID_SECRET, or the development data folder's. */
  ppidSecret: string;
  /** Records a detected refresh-token reuse for the account. */
  securityEvents: SecurityEvents;
  /** Moves on every write this process makes: voids the cached client and token reads. */
  writeEpoch: WriteEpoch;
  /** Whether the account has two-step authentication on (domains/two-step): a token exchange then needs an AAL2 grant. */
  secondFactor: { required(db: Executor, uid: string): Promise<boolean> };
}

export function createOAuthDomain({ db, clock, signingKey, issuer, records, config, ppidSecret, securityEvents, writeEpoch, secondFactor }: OAuthDomainDeps): Domain<OAuthService> {
  // /jwks slots: the current key, the next one (pre-published) and the previous one (still verifying).
  const jwks = [signingKey.publicJwk, loadPublicJwk(config.nextSigningKeyFile), loadPublicJwk(config.previousSigningKeyFile)]
    .filter((k): k is NonNullable<typeof k> => k !== null);
  const reads = new OAuthReads(db, writeEpoch, config.tokenCacheMs);
  const accessJwts = new AccessTokenJwts({ signingKey, issuer, jwks, reads });
  const oauthToken: TokenStrategy<AccessToken> = {
    kind: 'oauth',
    description: 'An OAuth access token: opaque (64 hex) or, for clients registered with jwtAccessTokens, a JWT access token.',
    find: (token, now) => accessJwts.find(token, now),
  };
  const service = new OAuthService(ppidSecret);
  const grants = new GrantsService({
    db, clock, issuer: new TokenIssuer({ signingKey, issuer, accessJwts, ppidSecret }), reuse: new RefreshReuse(db, securityEvents),
    keyBearingScopes: config.keyBearingScopes, secondFactor,
  });
  const register = routesOf(clientRoutes, { clients: service, db });
  const reading = { db, clock, records, issuer, accessJwts, reads, ppidSecret };
  const registerAuthorization = routesOf(authorizationRoutes, { authorization: new AuthorizationService({ db, clock, clients: service, issuer }) });
  const registerGrants = routesOf(grantRoutes, { grants, jwks });
  const registerTokens = routesOf(tokenRoutes, {
    introspection: new TokenIntrospection(reading), revocation: new TokenRevocation({ db, clock, accessJwts }), claims: new TokenClaims(reading),
  });
  const registerAuthorized = routesOf(authorizedClientRoutes, { db, clock, oauth: service });
  const registerKeyData = routesOf(keyDataRoutes, { deps: { db, clients: service, records, keyBearingScopes: config.keyBearingScopes } });
  return {
    name: 'oauth',
    service,
    routes: async (app) => {
      await register(app);
      // One scope: the OAuth routes share the form-body parser and CORS.
      await app.register(async (scope) => {
        installFormParser(scope);
        installCors(scope, config.corsOrigins, CORS_PATHS);
        await registerAuthorization(scope);
        await registerGrants(scope);
        await registerTokens(scope);
        await registerKeyData(scope);
        await registerAuthorized(scope);
      });
    },
    rootRoutes: routesOf(discoveryRoutes, { issuer, config }),
    strategies: { oauthToken },
    hooks: {
      onAccountDeleted: async (trx, uid) => {
        await deleteAccessTokensOf(trx, uid);
        await deleteGrantsOf(trx, uid);
      },
      onPasswordChanged: async (trx, uid) => {
        await deleteAccessTokensOf(trx, uid);
        await deletePublicGrantsOf(trx, uid);
      },
      onPasswordReset: async (trx, uid) => {
        await deleteAccessTokensOf(trx, uid);
        await deleteGrantsOf(trx, uid);
      },
    },
  };
}
