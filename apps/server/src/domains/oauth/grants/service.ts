import { appError } from '@tessera/errors';
import type { RequestContext } from '../../../platform/request-context.js';
import type { SessionWithAccount } from '../../sessions/index.js';
import { clientCredentials, verifyClient } from '../clients/credentials.js';
import { findClient } from '../clients/store.js';
import { hashToken, HEX64 } from '../token-hash.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { fxaCredentialsGrant } from './fxa-credentials.js';
import type { GrantContext, GrantRequest, GrantType, IssuedTokens, TokenRequest } from './grant.js';
import { refreshTokenGrant } from './refresh-token.js';
import { checkResource } from './resource.js';
import { findClientWithRefreshToken } from './store.js';
import { TOKEN_EXCHANGE_GRANT, tokenExchangeGrant } from './token-exchange.js';

// The token endpoint's dispatcher: it authenticates the client, checks the resource it names and
// hands the request to its grant type, one module each.

const GRANT_TYPES: Record<string, GrantType> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  'fxa-credentials': fxaCredentialsGrant,
  [TOKEN_EXCHANGE_GRANT]: tokenExchangeGrant,
};

export class GrantsService {
  constructor(private readonly context: GrantContext) {}

  /** POST /token: `session` is the Hawk-signed session of POST /oauth/token, when it carries one. */
  async token(body: TokenRequest, authorization: string | undefined, session: SessionWithAccount | null = null, ctx?: Pick<RequestContext, 'ip'>): Promise<IssuedTokens> {
    const { db } = this.context;
    const type = body.grant_type ?? 'authorization_code';
    const credentials = clientCredentials(body, authorization);
    const request: Omit<GrantRequest, 'client'> = { body, session, ctx };
    if (type === 'refresh_token' && body.refresh_token !== undefined && HEX64.test(body.refresh_token)) {
      // The client and the refresh token in one read; the client is checked before the token is used.
      const read = await findClientWithRefreshToken(db, credentials.clientId, hashToken(body.refresh_token.toLowerCase()));
      const client = verifyClient(read.client, credentials);
      checkResource(client, body.resource);
      return refreshTokenGrant(this.context, { ...request, client, refreshRead: read.token });
    }
    const client = verifyClient(await findClient(db, credentials.clientId), credentials);
    checkResource(client, body.resource);
    const grant = Object.hasOwn(GRANT_TYPES, type) ? GRANT_TYPES[type] : undefined;
    if (!grant) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['grant_type'], message: `unsupported grant_type ${type}` } });
    return grant(this.context, { ...request, client });
  }
}
