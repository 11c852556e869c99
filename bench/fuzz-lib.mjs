// A schema-driven fuzzer of the account API, from openapi.json alone (issue 9). For every operation
// it sends requests built from the operation's own schemas (valid data) and broken on purpose
// (a field missing, an unknown field, a wrong type, an oversized or hostile string, a body that is
// not JSON), with and without credentials of each kind the operation takes. It reports every 5xx
// and every error body that is not a catalogue error the operation declares.
//
// Credentials die as the fuzzer goes (it destroys its session, spends single-use tokens, changes
// the password); `credentialKit` makes each kind again when a request with it gets 401/110, so
// most authenticated requests reach past authentication.
//
// Used by `bench/fuzz.mjs` (long runs, figures in bench/README.md) and by the short run in
// `apps/server/test/http/fuzz.test.ts` (part of `npm test`). The requests are deterministic for a
// given seed; the credentials in them depend on when renewals happen.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';

const HOSTILE = [
  '', ' ', '\u0000', '\ud800', 'a'.repeat(5000), '../../etc/passwd', '%zz', '<script>', '"', '\\', '😀', 'a,b@example.com',
  'x@[127.0.0.1]', '\u202e', '{}', 'null', '1e309', '-1',
];

/** The operation's JSON body schema, its query parameters, its security and its declared errors. */
export function operationsOf(doc) {
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const body = op.requestBody?.content?.['application/json']?.schema ?? null;
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      const security = op.security ?? [];
      const kinds = [...new Set(security.flatMap((s) => Object.keys(s)).map((scheme) => scheme.replace(/(Bearer|Hawk)$/, '')))];
      const declared = new Set((op['x-errors'] ?? []).map((e) => `${e.status}:${e.errno}`));
      ops.push({ id: op.operationId, method: method.toUpperCase(), path, body, query, kinds, optionalAuth: security.some((s) => Object.keys(s).length === 0), declared });
    }
  }
  return ops;
}

function resolve(schema, doc) {
  if (schema?.$ref) {
    const name = schema.$ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
    return doc.components?.schemas?.[name] ?? {};
  }
  return schema ?? {};
}

const emailArb = fc.tuple(fc.stringMatching(/^[a-z0-9][a-z0-9.+_-]{0,20}[a-z0-9]$/), fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/), fc.constantFrom('example', 'example.co'))
  .map(([local, host, tld]) => `${local.replace(/\.{2,}/g, '.')}@${host}.${tld}`);

/** An arbitrary for values a schema accepts (as far as a generator can tell: patterns, enums, ranges). */
export function valid(schema, doc, depth = 0) {
  const s = resolve(schema, doc);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  // An object's anyOf of `required` lists (at least one of these fields) constrains its properties:
  // the object is generated from them, and one of the named fields is then always present.
  if ((s.anyOf || s.oneOf) && !s.properties) return fc.oneof(...(s.anyOf ?? s.oneOf).map((x) => valid(x, doc, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      if (s.format === 'email-address') return emailArb;
      if (s.pattern) {
        try {
          const re = new RegExp(s.pattern, 'u');
          return fc.stringMatching(re).filter((v) => (s.maxLength === undefined || v.length <= s.maxLength) && (s.minLength === undefined || v.length >= s.minLength));
        } catch {
          return fc.string({ maxLength: Math.min(s.maxLength ?? 32, 32) });
        }
      }
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 64, 64) });
    }
    case 'integer':
      return fc.integer({ min: s.minimum ?? 0, max: s.maximum ?? 2_000_000_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? 0, max: s.maximum ?? 1e9, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(valid(s.items ?? {}, doc, depth + 1), { maxLength: Math.min(s.maxItems ?? 3, 3) });
    case 'null':
      return fc.constant(null);
    case 'object':
    default: {
      if (depth > 3) return fc.constant({});
      const props = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const oneOfThese = (s.anyOf ?? []).flatMap((x) => x.required ?? []).filter((k) => k in props);
      if (oneOfThese.length && !oneOfThese.some((k) => required.has(k))) required.add(oneOfThese[0]);
      // Fields that must come together (dependentRequired) come together or not at all.
      const groups = s.dependentRequired ?? {};
      const entries = Object.entries(props).map(([k, v]) => [k, valid(v, doc, depth + 1)]);
      return fc.record(Object.fromEntries(entries), { requiredKeys: [...required] }).map((o) => {
        for (const [key, needs] of Object.entries(groups)) {
          if (key in o && needs.some((n) => !(n in o))) delete o[key];
        }
        for (const [key, needs] of Object.entries(groups)) {
          if (!(key in o)) for (const n of needs) if (!required.has(n) && !Object.keys(groups).some((k) => k in o && groups[k].includes(n))) delete o[n];
        }
        return o;
      });
    }
  }
}

/** Breaks a valid object in one way a client could. */
export function broken(schema, doc) {
  const s = resolve(schema, doc);
  const keys = Object.keys(s.properties ?? {});
  return fc.tuple(valid(s, doc), fc.nat(), fc.constantFrom(...HOSTILE), fc.constantFrom('drop', 'extra', 'type', 'hostile', 'null', 'array', 'deep'))
    .map(([o, n, bad, how]) => {
      if (typeof o !== 'object' || o === null) return o;
      const key = keys.length ? keys[n % keys.length] : 'x';
      const copy = { ...o };
      switch (how) {
        case 'drop': delete copy[key]; break;
        case 'extra': copy[`unexpected${n % 7}`] = bad; break;
        case 'type': copy[key] = typeof copy[key] === 'string' ? n : String(n); break;
        case 'hostile': copy[key] = bad; break;
        case 'null': copy[key] = null; break;
        case 'array': copy[key] = [bad]; break;
        case 'deep': copy[key] = JSON.parse('['.repeat(50) + ']'.repeat(50)); break;
      }
      return copy;
    });
}

// ---- credentials ---------------------------------------------------------------------------

/**
 * A credential the fuzzer sends: `header()` gives the current Authorization value (undefined while
 * there is none). Optional: `renew(generation)` makes a new one unless that generation was already
 * replaced; `pending`, a renewal under way; `after(status, errno, generation)`, told every answer
 * to a request that carried it; `exclusive`, sent by one request at a time. A plain function is a
 * credential that is never renewed.
 */
function variantsOf(entry) {
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

// ---- the run ---------------------------------------------------------------------------------

/** Lets the next request use an exclusive credential. */
function release(used) {
  if (!used?.release) return;
  used.credential.inUse = null;
  used.release();
}

/** What the server's authentication layer (http/auth.ts) says when it refuses a real token it once issued. */
const AUTH_LAYER_401 = new Set(['Unknown or expired token', 'Token already used']);

/**
 * Runs `requests` requests (or until `timeLimitMs`) against `baseUrl`. `credentials` maps a token
 * kind (sessionToken, keyFetchToken, …, oauth) to a credential, a list of variants (one is picked
 * per request), or a plain function giving an Authorization value. With `renew` (default), a
 * credential's `after` hook hears every answer to a request that carried it (and may renew it)
 * before its worker goes on; one without the hook is renewed when it gets 401/110.
 * `clientAddresses`, when set, are sent in X-Forwarded-For, one per request (a server with
 * TRUST_PROXY sees the fuzz come from that many clients, as rate limiting would in production).
 */
export async function fuzz({ doc, baseUrl, credentials, requests, seed = 1, timeLimitMs = 60_000, concurrency = 4, renew = true, clientAddresses = [] }) {
  const ops = operationsOf(doc);
  const rand = fc.sample(fc.nat(), { seed, numRuns: requests * 4 });
  let r = 0;
  const next = () => rand[r++ % rand.length];
  const variants = Object.fromEntries(Object.entries(credentials).map(([kind, entry]) => [kind, variantsOf(entry)]));
  const report = {
    sent: 0, byStatus: {}, fiveXX: [], undeclared: [], notCatalogue: [], byOperation: {},
    // Requests sent with a real credential of a kind the operation takes, how many got 401 (of
    // those, how many authentication itself refused), and why.
    authenticated: { sent: 0, unauthorized: 0, refusedAtAuth: 0, byKind: {} },
  };
  const deadline = Date.now() + timeLimitMs;

  const one = async (i) => {
    const op = ops[next() % ops.length];
    const mode = next() % 10;
    const bodySeed = seed * 1_000_003 + i;
    let body;
    let raw;
    if (op.body) {
      if (mode < 6) body = fc.sample(valid(op.body, doc), { seed: bodySeed, numRuns: 1 })[0];
      else if (mode < 9) body = fc.sample(broken(op.body, doc), { seed: bodySeed, numRuns: 1 })[0];
      else raw = ['{', '[]', '"x"', 'null', '{"a":1,}', '\u0000'][next() % 6];
    }
    const query = new URLSearchParams();
    for (const p of op.query) {
      if (next() % 3 === 0) continue;
      const v = mode < 7 ? fc.sample(valid(p.schema, doc), { seed: bodySeed + 7, numRuns: 1 })[0] : HOSTILE[next() % HOSTILE.length];
      query.set(p.name, String(v));
    }
    const headers = {};
    if (clientAddresses.length) headers['x-forwarded-for'] = clientAddresses[next() % clientAddresses.length];
    const auth = next() % 5;
    let used = null;
    if (op.kinds.length && auth < 3) {
      const kind = op.kinds[next() % op.kinds.length];
      const choices = variants[kind] ?? [];
      const credential = choices.length ? choices[next() % choices.length] : null;
      // Not while it is being made again, and one request at a time with an exclusive credential
      // (a single-use token): another sent meanwhile would only find it spent.
      while (credential && (credential.inUse || credential.pending)) await (credential.inUse ?? credential.pending);
      const value = credential?.header();
      if (value) {
        headers.authorization = value;
        used = { kind, credential, generation: credential.generation };
        if (credential.exclusive) credential.inUse = new Promise((resolve) => { used.release = resolve; });
      }
    } else if (auth === 3) {
      headers.authorization = ['Bearer fxs_' + 'f'.repeat(64), 'Bearer nope', 'Hawk id="x", ts="1", nonce="n", mac="m"', 'Basic Zm9vOmJhcg=='][next() % 4];
    }
    if (op.body || raw !== undefined) headers['content-type'] = 'application/json';
    const url = `${baseUrl}${op.path}${query.size ? `?${query}` : ''}`;
    const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    let res;
    let text;
    try {
      res = await fetch(url, { method: op.method, headers, ...(payload !== undefined && op.method !== 'GET' ? { body: payload } : {}) });
      text = await res.text();
    } catch (err) {
      report.fiveXX.push({ op: op.id, status: 0, detail: String(err) });
      release(used);
      return;
    }
    report.sent++;
    report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
    const per = (report.byOperation[op.id] ??= { sent: 0, ok: 0 });
    per.sent++;
    if (res.ok) per.ok++;
    if (used) {
      const byKind = (report.authenticated.byKind[used.kind] ??= { sent: 0, unauthorized: 0 });
      report.authenticated.sent++;
      byKind.sent++;
      let answer = {};
      try {
        answer = res.status >= 400 ? JSON.parse(text) : {};
      } catch {
        answer = {};
      }
      const errno = answer.errno;
      if (res.status === 401) {
        report.authenticated.unauthorized++;
        byKind.unauthorized++;
        // Refused by authentication itself (the token was dead), or a 401 the route gave about the body?
        if (AUTH_LAYER_401.has(answer.detail)) {
          report.authenticated.refusedAtAuth++;
          byKind.refusedAtAuth = (byKind.refusedAtAuth ?? 0) + 1;
        }
        const why = `${op.id}: ${String(answer.detail ?? answer.message).slice(0, 80)}`;
        (byKind.reasons ??= {})[why] = (byKind.reasons[why] ?? 0) + 1;
      }
      if (renew) {
        if (used.credential.after) await used.credential.after(res.status, errno, used.generation);
        // Without a hook of its own, 401/110 (unknown token) counts as its death; another 401 (a bad signature) does not.
        else if (res.status === 401 && errno === 110) await used.credential.renew?.(used.generation);
      }
      release(used);
    }
    if (res.status >= 500) {
      report.fiveXX.push({ op: op.id, status: res.status, body: text.slice(0, 300), sent: payload?.slice(0, 200) });
      return;
    }
    if (res.status >= 400) {
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        report.notCatalogue.push({ op: op.id, status: res.status, body: text.slice(0, 200) });
        return;
      }
      if (typeof json.errno !== 'number' || json.code !== res.status || typeof json.message !== 'string' || typeof json.info !== 'string') {
        report.notCatalogue.push({ op: op.id, status: res.status, body: text.slice(0, 200) });
      } else if (!op.declared.has(`${res.status}:${json.errno}`)) {
        report.undeclared.push({ op: op.id, status: res.status, errno: json.errno, message: json.message });
      }
    }
  };

  let i = 0;
  const worker = async () => {
    while (i < requests && Date.now() < deadline) await one(i++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return report;
}
