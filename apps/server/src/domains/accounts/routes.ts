import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { appError } from '@tessera/errors';
import { contextOf } from '../../http/context.js';
import { credentialsOf } from '../../http/auth.js';
import { redirectToCheck } from '../../http/redirect.js';
import { responses } from '../../http/responses.js';
import {
  authPW, body, clientSalt, passwordBody, email, hex, keysQuery, metricsContext, reason, redirectTo, resume, service, uid,
  unblockCode, verificationMethod, wrapKb,
  SigninState,
} from '../../http/schemas.js';
import type { LoginInput } from './deps.js';
import type { AccountsService } from './service.js';
import type { AccountSetupService } from './setup.js';
import type { UnblockCodes } from './unblock.js';

const TAG = 'Account';
const hex64 = hex(64);
const v2Fields = {
  authPWVersion2: Type.Optional(hex(64, 'authPW from the v2 stretch; send with wrapKb, wrapKbVersion2 and clientSalt.')),
  wrapKb: Type.Optional(wrapKb),
  wrapKbVersion2: Type.Optional(hex(64, 'kB XOR the v2 unwrapBKey.')),
  clientSalt: Type.Optional(clientSalt),
};


const LoginBody = body({
  email: email(),
  authPW,
  service: Type.Optional(service),
  redirectTo: Type.Optional(redirectTo),
  resume: Type.Optional(resume),
  reason: Type.Optional(reason),
  unblockCode: Type.Optional(unblockCode),
  metricsContext: Type.Optional(metricsContext),
  originalLoginEmail: Type.Optional(email('The address the user typed, when the client signs in with another.')),
  verificationMethod: Type.Optional(verificationMethod),
});

const LoginQuery = Type.Object({
  keys: Type.Optional(keysQuery),
  service: Type.Optional(service),
  verificationMethod: Type.Optional(verificationMethod),
});

/** The sign-in input of /account/login and /session/reauth: body fields, with query fallbacks. */
function loginInput(
  body: Static<typeof LoginBody>, query: Static<typeof LoginQuery>,
): LoginInput {
  return {
    ...body,
    service: body.service ?? query.service,
    verificationMethod: body.verificationMethod ?? query.verificationMethod,
    keys: query.keys === true,
  };
}

const KeyTokens = {
  keyFetchToken: Type.Optional(hex64),
  keyFetchTokenVersion2: Type.Optional(hex64),
};

export interface AccountRoutesDeps {
  accounts: AccountsService;
  setup: AccountSetupService;
  unblockCodes: UnblockCodes;
  /** The origins `redirectTo` may name (PUBLIC_URL, CONTENT_URL, REDIRECT_ALLOWED_ORIGINS). */
  redirectOrigins: readonly string[];
}

export const accountRoutes: FastifyPluginAsyncTypebox<AccountRoutesDeps> = async (app, { accounts, setup, unblockCodes, redirectOrigins }) => {
  // Before rate limiting counts the request: a refused redirectTo changes nothing (issue 22).
  const redirectCheck = redirectToCheck(redirectOrigins);

  app.post('/account/create', {
    config: { auth: 'none', stretches: true, rateLimit: { actions: ['accountCreate'] } },
    preHandler: redirectCheck,
    schema: {
      tags: [TAG], summary: 'Create an account',
      description: 'Creates an account, its first (unconfirmed) session and, with `?keys=true`, key fetch tokens. Sends the confirmation email: a link by default, a 6-digit code with `verificationMethod: email-otp`. The version-2 fields (authPWVersion2, wrapKb, wrapKbVersion2, clientSalt) go together.',
      querystring: Type.Object({ keys: Type.Optional(keysQuery), service: Type.Optional(service) }),
      body: passwordBody({
        email: email(), authPW, ...v2Fields,
        service: Type.Optional(service), redirectTo: Type.Optional(redirectTo), resume: Type.Optional(resume),
        metricsContext: Type.Optional(metricsContext), style: Type.Optional(Type.Literal('trailhead')),
        verificationMethod: Type.Optional(verificationMethod),
      }),
      response: responses(Type.Object({
        uid, sessionToken: hex64, ...KeyTokens,
        authAt: Type.Integer({ description: 'Seconds since the epoch.' }),
        verificationMethod: Type.Optional(Type.String()),
      }), ['ACCOUNT_EXISTS', 'EMAIL_EXISTS', 'VERIFIED_SECONDARY_EMAIL_EXISTS', 'TOTP_REQUIRED', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT', 'SERVER_BUSY']),
    },
  }, async (req) => accounts.create({ ...req.body, service: req.body.service ?? req.query.service, keys: req.query.keys === true }, contextOf(req)));

  app.post('/account/login', {
    config: {
      auth: 'none', stretches: true,
      rateLimit: { actions: ['accountLogin'], failed: { INCORRECT_PASSWORD: 'passwordCheckFailed', INVALID_UNBLOCK_CODE: 'unblockCodeFailed' }, unblockable: true },
    },
    preHandler: redirectCheck,
    schema: {
      tags: [TAG], summary: 'Sign in',
      description: 'Checks authPW and creates a session. The session starts unconfirmed unless the sign-in needs no confirmation; the confirmation email goes out as a link or, with `verificationMethod` email-otp / email-2fa, as a 6-digit code. A v2 authPW returns `keyFetchTokenVersion2`. When rate limiting blocks the sign-in it answers 400/125 with `verificationMethod: email-captcha`: send an unblock code and retry with `unblockCode` (a sign-in with a valid code needs no further confirmation; a wrong or expired one gets 400/127).',
      querystring: LoginQuery,
      body: LoginBody,
      response: responses(Type.Object({
        uid, sessionToken: hex64, ...KeyTokens, ...SigninState,
        authAt: Type.Integer(), metricsEnabled: Type.Boolean(),
      }), ['ACCOUNT_UNKNOWN', 'INCORRECT_PASSWORD', 'INCORRECT_EMAIL_CASE', 'LOGIN_WITH_SECONDARY_EMAIL', 'LOGIN_WITH_INVALID_EMAIL', 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 'TOTP_REQUIRED', 'INVALID_UNBLOCK_CODE', 'REQUEST_BLOCKED', 'THROTTLED', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT', 'SERVER_BUSY']),
    },
  }, async (req) => accounts.login({ ...loginInput(req.body, req.query), blocked: req.customsBlock !== null }, contextOf(req)));

  app.post('/account/login/send_unblock_code', {
    config: { auth: 'none', rateLimit: { actions: ['sendUnblockCode'], handlesBlock: true } },
    schema: {
      tags: [TAG], summary: 'Email an unblock code',
      description: 'After a sign-in got 400/125 with `verificationMethod: email-captcha`: mails the account\'s primary address an 8-character code, valid for `UNBLOCK_CODE_LIFETIME_SECONDS` (an hour). A new code replaces the previous one. When rate limiting caps the mails (429/114 with retryAfter), nothing is sent, but the last code mailed stays valid for another lifetime: sign in with it.',
      body: body({ email: email(), metricsContext: Type.Optional(metricsContext) }),
      response: responses(Type.Object({}), ['ACCOUNT_UNKNOWN', 'LOGIN_WITH_SECONDARY_EMAIL', 'LOGIN_WITH_INVALID_EMAIL', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT']),
    },
  }, async (req) => {
    await unblockCodes.send(req.body.email, contextOf(req), req.customsBlock);
    return {};
  });

  app.post('/account/login/reject_unblock_code', {
    config: { auth: 'none', rateLimit: { actions: ['rejectUnblockCode'] } },
    schema: {
      tags: [TAG], summary: 'Refuse an unblock code ("this was not me")',
      description: 'The account\'s owner got a code they did not ask for: the code stops working. The answer is `{}` whether or not the code was the account\'s.',
      body: body({ uid, unblockCode }),
      response: responses(Type.Object({}), []),
    },
  }, async (req) => {
    await unblockCodes.reject(req.body.uid, req.body.unblockCode);
    return {};
  });

  app.post('/session/reauth', {
    config: {
      auth: { strategies: ['sessionToken'], unconfirmed: 'It proves the password again on the session; a waiting session stays waiting (for its email, or for the second factor, which no reauth replaces).' },
      stretches: true, rateLimit: { actions: ['authenticatedAccountLogin'], failed: { INCORRECT_PASSWORD: 'passwordCheckFailed' } },
    },
    schema: {
      tags: ['Session'], summary: 'Prove the password again on this session',
      description: 'Updates the session\'s authAt; `?keys=true` returns a key fetch token for it.',
      querystring: LoginQuery,
      body: LoginBody,
      response: responses(Type.Object({
        uid, keyFetchToken: Type.Optional(hex(64)), keyFetchTokenVersion2: Type.Optional(hex(64)), ...SigninState,
        authAt: Type.Integer(), metricsEnabled: Type.Boolean(),
      }), ['ACCOUNT_UNKNOWN', 'INCORRECT_PASSWORD', 'INCORRECT_EMAIL_CASE', 'LOGIN_WITH_SECONDARY_EMAIL', 'LOGIN_WITH_INVALID_EMAIL', 'UNABLE_TO_LOGIN_NO_PASSWORD_SET', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT', 'SERVER_BUSY'], { auth: true }),
    },
  }, async (req) => accounts.reauth(credentialsOf(req, 'sessionToken'), loginInput(req.body, req.query), contextOf(req)));

  app.get('/account/keys', {
    config: { auth: 'keyFetchToken' },
    schema: {
      tags: [TAG], summary: 'Fetch the key bundle',
      description: 'Returns kA and wrapKb encrypted under the keyFetchToken (192 hex: 64 bytes ciphertext, 32 bytes HMAC) and spends the token. Before the account and the session are confirmed it answers 104 and keeps the token.',
      response: responses(Type.Object({ bundle: Type.String({ pattern: '^[0-9a-f]{192}$' }) }), ['ACCOUNT_UNVERIFIED'], { input: false, auth: true }),
    },
  }, async (req) => accounts.keys(credentialsOf(req, 'keyFetchToken')));

  app.get('/account/status', {
    config: {
      auth: { strategies: ['sessionToken'], optional: true, unconfirmed: 'Whether the account exists, its locale and whether it has a password: what the sign-in already told its client.' },
      rateLimit: { actions: ['accountStatusCheck'] },
    },
    schema: {
      tags: [TAG], summary: 'Does an account exist (by session or uid)',
      // OpenAPI cannot make a parameter required only without credentials: the rule is said here, in
      // the security alternatives (a session, or none) and in the declared 400/108.
      description: 'Needs one of two things: a session (Bearer or Hawk), or `?uid=` without one. With a session: that account\'s status (`exists`, `locale`, `hasPassword`); `uid` is then ignored. Without a session: whether the account `uid` exists. With neither: 400/108 (MISSING_PARAMETER, `param: "uid"`).',
      querystring: Type.Object({ uid: Type.Optional(hex(32, 'Account id: 16 bytes as 32 hex characters. Required when no session is sent (then 400/108 without it); ignored with a session.')) }),
      response: responses(Type.Object({
        exists: Type.Boolean(), locale: Type.Optional(Type.Union([Type.String(), Type.Null()])), hasPassword: Type.Optional(Type.Boolean()),
      }), ['MISSING_PARAMETER'], { auth: true }),
    },
  }, async (req) => {
    if (req.auth) {
      const s = credentialsOf(req, 'sessionToken');
      return { exists: true, locale: s.account.locale, hasPassword: s.account.verifierSetAt > 0 };
    }
    if (!req.query.uid) throw appError('MISSING_PARAMETER', { param: 'uid' }, 'Missing parameter in request query: uid (or authenticate with a session)');
    return accounts.statusByUid(req.query.uid);
  });

  app.post('/account/status', {
    config: { auth: 'none', rateLimit: { actions: ['accountStatusCheck'] } },
    schema: {
      tags: [TAG], summary: 'Does an account exist (by email)', operationId: 'accountStatusByEmail',
      description: 'Whether the address is the primary address of an account. With `thirdPartyAuthStatus: true` it also says whether the account has a password, a linked account or a passkey.',
      body: body({
        email: email(),
        thirdPartyAuthStatus: Type.Optional(Type.Boolean({ default: false })),
        clientId: Type.Optional(hex(16)),
        service: Type.Optional(service),
        metricsContext: Type.Optional(metricsContext),
      }),
      response: responses(Type.Object({
        exists: Type.Boolean(), hasLinkedAccount: Type.Optional(Type.Boolean()), hasPassword: Type.Optional(Type.Boolean()), hasPasskey: Type.Optional(Type.Boolean()),
      }), []),
    },
  }, async (req) => accounts.statusByEmail(req.body.email, req.body.thirdPartyAuthStatus === true));

  app.post('/account/credentials/status', {
    config: { auth: 'none', rateLimit: { actions: ['getCredentialsStatus'] } },
    schema: {
      tags: [TAG], summary: 'Which key stretching the account uses',
      description: '`currentVersion` is v2 when the account has a clientSalt (then PBKDF2 650,000 rounds over it); `upgradeNeeded` when it has no v2 verifier yet.',
      body: body({ email: email() }),
      response: responses(Type.Object({
        currentVersion: Type.Union([Type.Literal('v1'), Type.Literal('v2')]), clientSalt: Type.Optional(Type.String()), upgradeNeeded: Type.Boolean(),
      }), ['ACCOUNT_UNKNOWN', 'LOGIN_WITH_SECONDARY_EMAIL', 'LOGIN_WITH_INVALID_EMAIL', 'UNABLE_TO_LOGIN_NO_PASSWORD_SET']),
    },
  }, async (req) => accounts.credentialsStatus(req.body.email));

  app.post('/account/destroy', {
    config: { auth: 'sessionTokenVerified', stretches: true, rateLimit: { actions: ['accountDestroy'], failed: { INCORRECT_PASSWORD: 'accountDestroyFailed' } } },
    schema: {
      tags: [TAG], summary: 'Delete the account',
      description: 'Deletes the account and everything attached to it, after checking the password again. Needs a confirmed session.',
      body: body({ email: email(), authPW }),
      response: responses(Type.Object({}), ['ACCOUNT_UNKNOWN', 'INCORRECT_PASSWORD', 'INCORRECT_EMAIL_CASE', 'SESSION_UNVERIFIED', 'SERVER_BUSY'], { auth: true }),
    },
  }, async (req) => {
    await accounts.destroy(credentialsOf(req, 'sessionTokenVerified'), req.body.email, req.body.authPW, contextOf(req));
    return {};
  });

  app.get('/account', {
    config: { auth: { strategies: ['sessionToken'], unconfirmed: 'Read only, nothing secret (no keys, tokens or devices; of the addresses only the primary): the settings page of a waiting sign-in shows the account and what it still needs; every change needs a confirmed session.' } },
    schema: {
      tags: [TAG], summary: 'The account, for a settings page',
      response: responses(Type.Object({
        uid, email: Type.String(),
        emails: Type.Array(Type.Object({ email: Type.String(), verified: Type.Boolean(), isPrimary: Type.Boolean() }), { description: 'The primary first, then secondary addresses; a session not confirmed at the account\'s AAL gets the primary alone.' }),
        emailVerified: Type.Boolean(),
        createdAt: Type.Integer({ description: 'Milliseconds since the epoch.' }),
        passwordCreatedAt: Type.Integer({ description: 'When the current password was set (ms); 0 without a password.' }),
        hasPassword: Type.Boolean(),
        locale: Type.Union([Type.String(), Type.Null()]),
        metricsEnabled: Type.Boolean(),
        keysChangedAt: Type.Integer(),
        profileChangedAt: Type.Integer(),
        passwordVersion: Type.Union([Type.Literal('v1'), Type.Literal('v2')]),
        linkedAccounts: Type.Array(Type.Object({
          providerId: Type.Union([Type.Literal('google'), Type.Literal('apple')], { description: 'The identity provider.' }),
          authAt: Type.Integer({ description: 'The last sign-in through the link (ms).' }),
          enabled: Type.Boolean({ description: 'False once the provider reported the person revoked consent (Apple); the next sign-in with it enables it again.' }),
        }), { description: 'Google and Apple accounts linked by signing in with them (POST /linked_account/login).' }),
        authenticationMethods: Type.Array(Type.String(), { description: 'How the account can authenticate (amr): `pwd`, `email`, and `otp` with two-step authentication on.' }),
        authenticatorAssuranceLevel: Type.Integer({ description: 'The account\'s minimum AAL: 2 with two-step authentication on, else 1.' }),
      }), ['ACCOUNT_UNKNOWN'], { input: false, auth: true }),
    },
  }, async (req) => accounts.summary(credentialsOf(req, 'sessionToken')));

  app.get('/account/profile', {
    config: { auth: { strategies: ['sessionToken', 'oauthToken'], unconfirmed: 'Read only: the address, locale and assurance of the account the password proved, as the sign-in knows them; changes need a confirmed session.' } },
    schema: {
      tags: [TAG], summary: 'Profile data',
      description: 'With a session: every field. With an OAuth access token: the fields its scopes allow (`profile` covers all; `profile:email`, `profile:locale`, `profile:amr`, `profile:account_disabled_at`, `profile:account_locked_at`).',
      response: responses(Type.Object({
        email: Type.Optional(Type.String()),
        locale: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        authenticationMethods: Type.Optional(Type.Array(Type.String())),
        authenticatorAssuranceLevel: Type.Optional(Type.Integer()),
        accountDisabledAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        accountLockedAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        profileChangedAt: Type.Integer(),
        metricsEnabled: Type.Optional(Type.Boolean()),
        keysChangedAt: Type.Optional(Type.Integer()),
      }), [], { input: false, auth: true }),
    },
  }, async (req) => {
    if (req.auth?.strategy === 'oauthToken') {
      const token = credentialsOf(req, 'oauthToken');
      return accounts.profile(token.uid, token);
    }
    return accounts.profile(credentialsOf(req, 'sessionToken').uid, null);
  });

  app.post('/account/stub', {
    config: { auth: 'none', rateLimit: { actions: ['accountCreate'] } },
    schema: {
      tags: [TAG], summary: 'Create an account without a password',
      description: 'For relying parties that sign people up by email alone (e.g. a checkout). Only confidential clients named in `ACCOUNT_STUB_CLIENT_IDS`, proving their `clientSecret`. Returns an OAuth access token for the client (scopes profile:write and …/account/subscriptions). With `wantsSetupToken`, the address is mailed a link to a page where the person chooses a password (`/account/finish_setup`); the setup token is never in this reply. An address that any account holds gets 101.',
      body: body({
        email: email(), clientId: hex(16), clientSecret: hex(64, 'The client\'s secret (from `npm run admin -- clients add`).'),
        metricsContext: Type.Optional(metricsContext), wantsSetupToken: Type.Optional(Type.Boolean()),
      }),
      response: responses(Type.Object({ uid, access_token: hex64 }), ['ACCOUNT_EXISTS', 'UNKNOWN_CLIENT_ID', 'INCORRECT_CLIENT_SECRET', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT']),
    },
  }, async (req) => setup.stub(req.body, contextOf(req)));

  app.post('/account/set_password', {
    config: { auth: 'oauthToken', stretches: true },
    schema: {
      tags: [TAG], summary: 'Set the first password of a stub account',
      description: 'With the stub\'s OAuth access token (one issued by `/account/stub`; other access tokens get 110). Creates a session; `?sendVerifyEmail=true` (default) emails a 6-digit code to confirm the address.',
      querystring: Type.Object({ sendVerifyEmail: Type.Optional(Type.Boolean({ default: true })) }),
      body: passwordBody({ authPW, ...v2Fields, metricsContext: Type.Optional(metricsContext), service: Type.Optional(service) }),
      response: responses(Type.Object({ uid, sessionToken: hex64 }), ['CANNOT_CREATE_PASSWORD', 'FAILED_TO_SEND_EMAIL', 'BOUNCE_HARD', 'BOUNCE_SOFT', 'BOUNCE_COMPLAINT', 'SERVER_BUSY'], { auth: true }),
    },
  }, async (req) => {
    return setup.setPasswordWithToken(credentialsOf(req, 'oauthToken'), { ...req.body, sendVerifyEmail: req.query.sendVerifyEmail !== false }, contextOf(req));
  });

  app.post('/account/finish_setup', {
    config: { auth: 'none', stretches: true },
    schema: {
      tags: [TAG], summary: 'Set the first password with an emailed setup token',
      description: 'The setup token (a JWT from `/account/stub`) proves the address, so the account is confirmed and the new session is confirmed too.',
      body: passwordBody({ token: Type.String({ minLength: 16, maxLength: 2048, pattern: '^[\\w-]+\\.[\\w-]+\\.[\\w-]+$' }), authPW, ...v2Fields }),
      response: responses(Type.Object({ uid, sessionToken: hex64, verified: Type.Boolean() }), ['INVALID_TOKEN', 'SERVER_BUSY']),
    },
  }, async (req) => {
    const { token, ...password } = req.body;
    return setup.finishSetup(token, password, contextOf(req));
  });
};
