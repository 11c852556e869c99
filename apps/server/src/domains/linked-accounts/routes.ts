import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialsOf } from '../../http/auth.js';
import { contextOf } from '../../http/context.js';
import { responses } from '../../http/responses.js';
import { metricsContext, StringEnum, uid } from '../../http/schemas.js';
import type { LinkedAccountsService } from './service.js';
import { PROVIDERS } from './providers/port.js';

// The linked-account routes of spec 1 §7: sign-in with a Google or Apple id_token, unlinking, and
// the URL Apple's server-to-server notifications are sent to.

const TAG = 'Linked accounts';

const provider = StringEnum(PROVIDERS, { description: 'The identity provider: `google` or `apple` (spec 2 §5).' });
const jwt = (description: string) => Type.String({ minLength: 16, maxLength: 10_240, pattern: '^[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*$', description });

export const linkedAccountRoutes: FastifyPluginAsyncTypebox<{ linked: LinkedAccountsService }> = async (app, { linked }) => {
  app.post('/linked_account/login', {
    config: { auth: 'none', rateLimit: { actions: ['linkedAccountLogin'] } },
    schema: {
      tags: [TAG], summary: 'Sign in with Google or Apple',
      description: [
        'Checks the provider\'s OpenID Connect id_token: its RS256 signature against the provider\'s published keys, `iss`, `aud` (one of the configured client ids; an `aud` that also names another client needs an `azp` that is ours), `exp`, and `iat` (not in the future; LINKED_ACCOUNT_CLOCK_TOLERANCE_SECONDS of tolerance), and `nonce` when one is sent. A token is single-use.',
        'The token\'s subject, when linked, signs in to its account. Otherwise the address the provider verified links to the account whose confirmed primary address it is (or a stub awaiting setup), or opens a new account without a password (set one later with /password/create). An unconfirmed sign-up holding the address is replaced, and so is another account\'s unconfirmed secondary address (its claim is removed, however recent: the provider vouches for whoever holds the mailbox); a confirmed secondary address is 400/142. An address the provider has not verified is refused (400/107 on `idToken`), as is a token that fails any check (400/107 on `idToken` or `nonce`, the message says which check); a token is refused when used a second time. 500/205 when the provider\'s keys cannot be fetched (retry later).',
        'The session is confirmed, except on an account with two-step authentication: then it waits for the second factor (`verificationMethod: totp-2fa`, `verified: false`). No keyFetchToken is returned: keys come from the password.',
        'A provider that is not enabled answers 503/202.',
      ].join(' '),
      body: Type.Object({
        provider,
        idToken: jwt('The id_token the provider issued to your client (compact JWS).'),
        nonce: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The nonce your client put in the authorization request; the token\'s `nonce` must equal it.' })),
        metricsContext: Type.Optional(metricsContext),
      }, { additionalProperties: false }),
      response: responses(Type.Object({
        uid,
        sessionToken: Type.String({ pattern: '^[0-9a-f]{64}$' }),
        providerUid: Type.String({ description: 'The provider\'s id of the person (the token\'s `sub`).' }),
        email: Type.String({ description: 'The account\'s primary address.' }),
        emailVerified: Type.Boolean(),
        sessionVerified: Type.Boolean(),
        verified: Type.Boolean(),
        verificationMethod: Type.Optional(Type.String({ description: 'Present while the session waits: `totp-2fa`.' })),
        verificationReason: Type.Optional(Type.String()),
        authAt: Type.Integer({ description: 'Seconds since the epoch.' }),
      }), ['THIRD_PARTY_ACCOUNT_ERROR', 'FEATURE_NOT_ENABLED', 'LOGIN_WITH_SECONDARY_EMAIL', 'LOGIN_WITH_INVALID_EMAIL', 'ACCOUNT_EXISTS']),
    },
  }, async (req) => linked.login(req.body, contextOf(req)));

  app.post('/linked_account/unlink', {
    config: { auth: 'sessionTokenVerified' },
    schema: {
      tags: [TAG], summary: 'Unlink a Google or Apple account',
      description: 'Removes the account\'s link to the provider; the sessions opened through it end, except the calling one. Refused with 400/210 when it is the account\'s only way to sign in (no password and no other link), and with 400/107 when no such link exists. Needs a confirmed session.',
      body: Type.Object({ provider }, { additionalProperties: false }),
      response: responses(Type.Object({}), ['UNABLE_TO_LOGIN_NO_PASSWORD_SET', 'SESSION_UNVERIFIED'], { auth: true }),
    },
  }, async (req) => {
    await linked.unlink(credentialsOf(req, 'sessionTokenVerified'), req.body.provider, contextOf(req));
    return {};
  });

  app.post('/linked_account/apple/notification', {
    config: { auth: 'appleNotification', rateLimit: { actions: ['linkedAccountNotification'] } },
    schema: {
      tags: [TAG], summary: 'Apple\'s server-to-server notifications',
      description: 'Register this URL with Apple. The body\'s `payload` is a JWT signed by Apple, proven by the appleNotification auth strategy once the body is valid (checked like an id_token: Apple\'s keys, issuer, one of the Apple client ids as audience, at most a day old; else 400/107 on `payload`). `consent-revoked` disables the Apple link and `account-delete` removes it; both end the sessions it opened. `email-disabled` and `email-enabled` (private relay forwarding) update the address kept with the link. A subject that is not linked changes nothing. 503/202 unless LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED.',
      body: Type.Object({ payload: jwt('The notification: a JWT signed by Apple whose `events` claim holds type, sub and (for email events) email.') }),
      response: responses(Type.Object({}), ['THIRD_PARTY_ACCOUNT_ERROR', 'FEATURE_NOT_ENABLED']),
    },
  }, async (req) => {
    await linked.appleNotification(credentialsOf(req, 'appleNotification'), contextOf(req));
    return {};
  });
};
