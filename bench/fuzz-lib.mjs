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
import fc from 'fast-check';
import { variantsOf } from './lib/fuzz-credentials.mjs';
import { broken, HOSTILE, operationsOf, valid } from './lib/fuzz-requests.mjs';

// The requests (from the schemas) are in bench/lib/fuzz-requests.mjs, the credentials in
// bench/lib/fuzz-credentials.mjs; this module runs them.
export { broken, operationsOf, valid };
export { credentialKit } from './lib/fuzz-credentials.mjs';

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
