import fc from 'fast-check';

// The fuzzer's requests, from openapi.json alone (bench/fuzz-lib.mjs): the operations, data valid
// for a schema, and the same data broken on purpose.

export const HOSTILE = [
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
  // A named schema a route describes further: `{ description, allOf: [{ $ref }] }`.
  if (schema?.allOf?.length === 1) return resolve(schema.allOf[0], doc);
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
