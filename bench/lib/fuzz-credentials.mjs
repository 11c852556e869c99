import { randomBytes } from 'node:crypto';

// The fuzzer's credentials (bench/fuzz-lib.mjs): each kind the API takes, made again as the fuzz
// kills them.

/**
 * A credential the fuzzer sends: `header()` gives the current Authorization value (undefined while
 * there is none). Optional: `renew(generation)` makes a new one unless that generation was already
 * replaced; `pending`, a renewal under way; `after(status, errno, generation)`, told every answer
 * to a request that carried it; `exclusive`, sent by one request at a time. A plain function is a
 * credential that is never renewed.
 */
export function variantsOf(entry) {
  if (!entry) return [];
  return (Array.isArray(entry) ? entry : [entry]).map((c) => (typeof c === 'function' ? { label: 'fixed', header: c, generation: 0 } : c));
}

/** 400s that schema validation and body parsing give, before any handler runs. */
const VALIDATION_ERRNOS = new Set([106, 107, 108, 999]);
/** Whether a route handler ran for this answer (so it may have spent or ended the token). */
const handlerRan = (status, errno) => status === 200 || (status === 400 && !VALIDATION_ERRNOS.has(errno));

/**
 * Credentials of every kind the API takes, made through the SDK the way a client makes them, each
 * made again when the fuzzer finds it dead (401/110), when a single-use token has been spent, or
 * when a check after a request that may have ended it says so. Each credential lives on an account
 * of its own whose password the kit knows; when a fuzz request changes that password (password
 * change, reset) or the account otherwise stops serving, the kit signs up a new one.
 *
 * - `client`: a TesseraClient (give it a `fetch` that marks its requests, e.g. with an address rate
 *   limiting ignores: renewal is the harness, not the fuzz);
 * - `bearer(type, token)`: the `Bearer <prefix><tokenId>` header of a onepw token;
 * - `mail.mark()` / `mail.code(email, template, mark)`: the code of the first message of that
 *   template to that address after the mark;
 * - `stub`: `{ clientId, clientSecret }` of a client allowed to create stub accounts, for OAuth
 *   access tokens (optional).
 */
export function credentialKit({ client, bearer, mail, stub, emailPrefix = 'fuzz.kit' }) {
  let made = 0;
  const newEmail = () => `${emailPrefix}.${Date.now().toString(36)}.${++made}@example.com`;
  // The server only ever sees authPW, so the kit's accounts have a random one and no password:
  // no client-side stretching for each credential made.
  const newAuthPW = () => randomBytes(32).toString('hex');
  // The account each credential is made on: one per credential, so that what the fuzz does with
  // one (a reset or password change ends every token of the account) does not kill the others.
  const accountOf = {};
  const renewals = {};

  /** Signs up a new account and confirms it by its emailed code. */
  const freshAccount = async (label) => {
    const email = newEmail();
    const authPW = newAuthPW();
    const since = mail.mark();
    const created = await client.accountCreate({ email, authPW, verificationMethod: 'email-otp' });
    await client.sessionVerifyCode(created.sessionToken, { code: await mail.code(email, 'verifyShortCode', since) });
    accountOf[label] = { email, authPW };
    return accountOf[label];
  };
  const accountFor = async (label) => accountOf[label] ?? freshAccount(label);
  /** A confirmed sign-in to the credential's account: `{ email, authPW, session }` (the login reply). */
  const signIn = async (label, keys = false) => {
    const { email, authPW } = await accountFor(label);
    const since = mail.mark();
    const session = await client.accountLogin({ email, authPW, verificationMethod: 'email-otp' }, { keys });
    if (!session.verified) await client.sessionVerifyCode(session.sessionToken, { code: await mail.code(email, 'verifyLoginCode', since) });
    return { email, authPW, session };
  };
  /** A password forgot token of the credential's account and the code emailed with it. */
  const forgot = async (label) => {
    const { email } = await accountFor(label);
    const since = mail.mark();
    const { passwordForgotToken } = await client.passwordForgotSendCode({ email });
    return { passwordForgotToken, code: () => mail.code(email, 'recoveryEmail', since) };
  };

  // Each maker gives `[token type, token]`; the type names the Bearer prefix (oauth: none).
  const MAKERS = {
    'sessionToken verified': async (label) => ['sessionToken', (await signIn(label)).session.sessionToken],
    // A session of an account that was never confirmed.
    'sessionToken unverified': async () => ['sessionToken', (await client.accountCreate({ email: newEmail(), authPW: newAuthPW() })).sessionToken],
    keyFetchToken: async (label) => ['keyFetchToken', (await signIn(label, true)).session.keyFetchToken],
    passwordForgotToken: async (label) => ['passwordForgotToken', (await forgot(label)).passwordForgotToken],
    accountResetToken: async (label) => {
      const f = await forgot(label);
      return ['accountResetToken', (await client.passwordForgotVerifyCode(f.passwordForgotToken, { code: await f.code() })).accountResetToken];
    },
    passwordChangeToken: async (label) => {
      const { email, authPW, session } = await signIn(label);
      return ['passwordChangeToken', (await client.passwordChangeStart(session.sessionToken, { email, oldAuthPW: authPW })).passwordChangeToken];
    },
    ...(stub ? { oauth: async () => ['oauth', (await client.accountStub({ email: newEmail(), clientId: stub.clientId, clientSecret: stub.clientSecret })).access_token] } : {}),
  };
  // Spent by the one route that takes them whenever it gets past validation, even when it then
  // fails: made again right after such an answer, before anyone finds them dead.
  const SINGLE_USE = new Set(['keyFetchToken', 'passwordChangeToken', 'accountResetToken']);
  // Ended by some answers (wrong codes use up a forgot token's tries; a session may be destroyed):
  // after a handler ran, the kit asks whether the token still works, outside the fuzz's counts.
  const ALIVE = {
    passwordForgotToken: (token) => client.passwordForgotStatus(token),
    'sessionToken verified': (token) => client.sessionStatus(token),
    'sessionToken unverified': (token) => client.sessionStatus(token),
  };
  // A maker that fails may have met the fuzz's doing on its account (the password changed, the
  // code budget spent by wrong codes): it gets one more try with a new account.
  const make = async (label) => {
    try {
      return await MAKERS[label](label);
    } catch {
      delete accountOf[label];
      return MAKERS[label](label);
    }
  };

  const credential = (label) => {
    const c = {
      label,
      exclusive: SINGLE_USE.has(label),
      inUse: null,
      token: undefined,
      value: undefined,
      generation: 0,
      pending: null,
      header: () => c.value,
      renew: (seen = c.generation) => {
        if (seen !== c.generation) return c.pending ?? Promise.resolve();
        c.pending ??= make(label).then(([type, token]) => {
          c.token = token;
          c.value = type === 'oauth' ? `Bearer ${token}` : bearer(type, token);
          (renewals[label] ??= { ok: 0, failed: 0 }).ok++;
        }, (err) => {
          (renewals[label] ??= { ok: 0, failed: 0 }).failed++;
          renewals[label].lastError = String(err?.message ?? err).slice(0, 200);
        }).finally(() => {
          c.generation++;
          c.pending = null;
        });
        return c.pending;
      },
      /** Told every answer to a request that carried generation `seen`: renews it if that killed it. */
      async after(status, errno, seen) {
        if (seen !== c.generation) return;
        // 401/110 is the token's death, or the route's answer about the body (another session's
        // id, another address): the check tells which when the kind has one.
        const unknown = status === 401 && errno === 110;
        if (!unknown && !handlerRan(status, errno)) return;
        if (SINGLE_USE.has(label)) return c.renew(seen);
        const alive = ALIVE[label];
        if (!alive) return unknown ? c.renew(seen) : undefined;
        try {
          await alive(c.token);
        } catch (err) {
          if (err?.code === 401) await c.renew(seen);
        }
      },
    };
    return c;
  };
  const all = Object.keys(MAKERS).map(credential);
  const byKind = {};
  for (const c of all) (byKind[c.label.split(' ')[0]] ??= []).push(c);
  return {
    /** Credential variants by token kind, for `fuzz({ credentials })`. */
    credentials: byKind,
    /** Makes the first credential of every kind. */
    async init() {
      await Promise.all(all.map((c) => c.renew()));
      const failed = all.filter((c) => c.value === undefined).map((c) => `${c.label}: ${renewals[c.label]?.lastError}`);
      if (failed.length) throw new Error(`could not make credentials: ${failed.join('; ')}`);
    },
    /** By credential: how many were made (the first included) and how many attempts failed. */
    renewals,
  };
}
