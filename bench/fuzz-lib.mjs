// A schema-driven fuzzer of the account API, from openapi.json alone (issue 9). For every operation
// it sends requests built from the operation's own schemas (valid data) and broken on purpose
// (a field missing, an unknown field, a wrong type, an oversized or hostile string, a body that is
// not JSON), with and without credentials of each kind the operation takes. It reports every 5xx
// and every error body that is not a catalogue error the operation declares.
//
// Used by `bench/fuzz.mjs` (long runs, figures in bench/README.md) and by the short run in
// `apps/server/test/http/fuzz.test.ts` (part of `npm test`). Deterministic for a given seed.
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
  if (s.anyOf || s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf).map((x) => valid(x, doc, depth + 1)));
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

/**
 * Runs `requests` requests (or until `timeLimitMs`) against `baseUrl`. `credentials` maps a token
 * kind (sessionToken, keyFetchToken, …, oauth) to a function giving a current Authorization value.
 */
export async function fuzz({ doc, baseUrl, credentials, requests, seed = 1, timeLimitMs = 60_000, concurrency = 4 }) {
  const ops = operationsOf(doc);
  const rand = fc.sample(fc.nat(), { seed, numRuns: requests * 4 });
  let r = 0;
  const next = () => rand[r++ % rand.length];
  const report = { sent: 0, byStatus: {}, fiveXX: [], undeclared: [], notCatalogue: [], byOperation: {} };
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
    const auth = next() % 5;
    if (op.kinds.length && auth < 3) {
      const kind = op.kinds[next() % op.kinds.length];
      const value = credentials[kind]?.();
      if (value) headers.authorization = value;
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
      return;
    }
    report.sent++;
    report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
    const per = (report.byOperation[op.id] ??= { sent: 0, ok: 0 });
    per.sent++;
    if (res.ok) per.ok++;
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
