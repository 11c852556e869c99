import { appError } from '@tessera/errors';
import { randomHex } from '@tessera/protocol';
import { aalRefusal } from '../../sessions/index.js';
import { checkScopes, parseScope } from '../scopes.js';
import { authenticationOf, ttlSeconds, type Grant, type GrantType, type Issuance } from './grant.js';

// The session-token grant for first-party clients (`canGrant`, e.g. browsers): the signed-in
// session itself authorizes, no code. Needs a confirmed account and a session confirmed at the
// account's AAL, as /oauth/authorization and /account/keys do: on an account with two-step
// authentication, a session confirmed by email only (or waiting for the second factor) gets
// 400/222 (issue 22, hole 1).

export const fxaCredentialsGrant: GrantType = async ({ db, clock, issuer }, { client, body, session }) => {
  if (!session) throw appError('INVALID_TOKEN', { detail: 'The fxa-credentials grant needs a session token' });
  const refused = aalRefusal(session, 'ask for tokens');
  if (refused) throw refused;
  if (!session.account.emailVerified) throw appError('ACCOUNT_UNVERIFIED');
  if (!client.canGrant) throw appError('INVALID_SCOPES', { invalidScopes: [] }, 'This client may not use the fxa-credentials grant (it is not registered with canGrant)');
  const scope = parseScope(body.scope ?? 'profile');
  checkScopes(client, scope);
  const now = clock.now();
  const ttl = ttlSeconds(client, body.ttl);
  const grant: Grant = { uid: session.uid, clientId: client.id, scope, authAt: session.authAt, ...authenticationOf(session), grantId: randomHex(16) };
  const issuance: Issuance = { grant, subject: issuer.subject(client, session.uid, body.ppid_seed ?? 0, now), resource: body.resource, nonce: null, ttl, now };
  const issued = await db.transaction().execute(async (trx) => {
    const { token: accessToken } = await issuer.accessToken(trx, client, issuance);
    const refreshToken = body.access_type === 'offline' ? await issuer.refreshToken(trx, client, grant, now) : undefined;
    return { accessToken, refreshToken };
  });
  return issuer.issueTokens(issuance, client, issued);
};
