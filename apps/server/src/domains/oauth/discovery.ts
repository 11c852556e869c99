import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { responses } from '../../http/responses.js';
import type { OAuthConfig } from './config.js';
import { installCors } from './cors.js';

// Discovery (OpenID Connect Discovery 1.0, RFC 8414): what the server supports, exactly — only
// the code flow, PKCE S256, RS256 id_tokens, client_secret_basic / client_secret_post / none.

export function discoveryDocument(issuer: string) {
  const v1 = `${issuer}/v1`;
  return {
    issuer,
    authorization_endpoint: `${v1}/authorization`,
    token_endpoint: `${v1}/token`,
    userinfo_endpoint: `${v1}/userinfo`,
    jwks_uri: `${v1}/jwks`,
    introspection_endpoint: `${v1}/introspect`,
    revocation_endpoint: `${v1}/destroy`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    // Token exchange (RFC 8693) is for clients registered with canGrant; others are refused 400/114.
    grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:token-exchange'],
    subject_types_supported: ['public', 'pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'profile', 'profile:uid', 'profile:email', 'profile:locale', 'profile:amr', 'profile:account_disabled_at', 'profile:account_locked_at'],
    claims_supported: ['sub', 'iss', 'aud', 'azp', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'amr', 'acr', 'email', 'email_verified', 'locale'],
    acr_values_supported: ['AAL1', 'AAL2'],
    // RFC 9207: every authorization response (the `redirect` of POST /authorization) carries `iss`.
    authorization_response_iss_parameter_supported: true,
  };
}

const Discovery = Type.Object({
  issuer: Type.String(), authorization_endpoint: Type.String(), token_endpoint: Type.String(), userinfo_endpoint: Type.String(), jwks_uri: Type.String(),
  introspection_endpoint: Type.String(), revocation_endpoint: Type.String(),
}, { additionalProperties: true });

export const discoveryRoutes: FastifyPluginAsyncTypebox<{ issuer: string; config: OAuthConfig }> = async (app, { issuer, config }) => {
  const doc = discoveryDocument(issuer);
  installCors(app, config.corsOrigins, ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/.well-known/fxa-client-configuration']);

  app.get('/.well-known/fxa-client-configuration', {
    config: { auth: 'none' },
    schema: {
      operationId: 'fxaClientConfiguration', tags: ['OAuth'], summary: 'Where browsers find each service',
      description: 'Browsers configure themselves from this: the auth, OAuth and profile servers are all this server (browsers add `/v1`); the Sync token server and the pairing server come from SYNC_TOKENSERVER_URL and PAIRING_SERVER_URL.',
      response: responses(Type.Object({
        auth_server_base_url: Type.String(), oauth_server_base_url: Type.String(), profile_server_base_url: Type.String(),
        sync_tokenserver_base_url: Type.String(), pairing_server_base_uri: Type.String(),
      }), [], { input: false }),
    },
  }, async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=3600');
    return {
      auth_server_base_url: issuer, oauth_server_base_url: issuer, profile_server_base_url: issuer,
      sync_tokenserver_base_url: config.syncTokenserverUrl, pairing_server_base_uri: config.pairingServerUrl,
    };
  });
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server'] as const) {
    app.get(path, {
      config: { auth: 'none' },
      schema: {
        operationId: path.endsWith('openid-configuration') ? 'openidConfiguration' : 'oauthAuthorizationServer', tags: ['OAuth'],
        summary: path.endsWith('openid-configuration') ? 'OpenID Connect discovery' : 'OAuth authorization server metadata (RFC 8414)',
        description: 'What this server supports, exactly: the authorization-code flow with PKCE (`S256` only), refresh tokens, RS256 id_tokens, client authentication by `client_secret_basic`, `client_secret_post` or `none` (public clients), introspection and revocation.',
        response: responses(Discovery, [], { input: false }),
      },
    }, async (_req, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return doc;
    });
  }
};
