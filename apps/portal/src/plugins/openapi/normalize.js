// Reduces an OpenAPI 3.x document to what the /api page renders. Pure: the unit test feeds it the
// fixture and checks the shape, and the plugin feeds it the real openapi.json.

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const MAX_DEPTH = 8;

/** Follows a local `#/…` reference. */
function deref(doc, node, seen = new Set()) {
  let current = node;
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (seen.has(ref)) return { type: 'object', description: `(recursive: ${ref.split('/').pop()})` };
    seen.add(ref);
    if (!ref.startsWith('#/')) throw new Error(`tessera-openapi: only local $ref is supported, got ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .reduce((acc, key) => acc?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (current === undefined) throw new Error(`tessera-openapi: unresolved $ref ${ref}`);
  }
  return current;
}

function typeLabel(schema) {
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type) return schema.type === 'array' && schema.items ? `${typeLabel(schema.items)}[]` : schema.type;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return 'enum';
  if (schema.properties) return 'object';
  if (schema.anyOf || schema.oneOf) return (schema.anyOf || schema.oneOf).map((s) => typeLabel(s)).join(' | ');
  return 'any';
}

function constraints(schema) {
  const out = [];
  if (schema.enum) out.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (schema.const !== undefined) out.push(`exactly ${JSON.stringify(schema.const)}`);
  if (schema.format) out.push(`format ${schema.format}`);
  if (schema.pattern) out.push(`pattern ${schema.pattern}`);
  if (schema.minLength !== undefined) out.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) out.push(`max length ${schema.maxLength}`);
  if (schema.minimum !== undefined) out.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) out.push(`max ${schema.maximum}`);
  if (schema.minItems !== undefined) out.push(`min items ${schema.minItems}`);
  if (schema.maxItems !== undefined) out.push(`max items ${schema.maxItems}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  if (schema.deprecated) out.push('deprecated');
  return out;
}

/** A schema as a small tree: { t: type label, d?: description, c?: constraints, p?: properties, i?: items }. */
export function schemaNode(doc, input, depth = 0, seen = new Set()) {
  const ref = input && input.$ref;
  if (ref && seen.has(ref)) return { t: ref.split('/').pop(), d: 'recursive reference' };
  const schema = deref(doc, input) || {};
  const nextSeen = ref ? new Set([...seen, ref]) : seen;
  const merged = schema.allOf ? mergeAllOf(doc, schema) : schema;
  const node = { t: typeLabel(merged) };
  if (merged.description) node.d = merged.description;
  const c = constraints(merged);
  if (c.length) node.c = c;
  if (depth >= MAX_DEPTH) return node;
  if (merged.properties) {
    const required = new Set(merged.required || []);
    node.p = Object.entries(merged.properties).map(([name, prop]) => ({
      n: name,
      ...(required.has(name) ? { r: 1 } : {}),
      ...schemaNode(doc, prop, depth + 1, nextSeen),
    }));
  }
  if (merged.type === 'array' && merged.items) {
    const items = schemaNode(doc, merged.items, depth + 1, nextSeen);
    if (items.p || items.i) node.i = items;
  }
  const alternatives = merged.anyOf || merged.oneOf;
  if (alternatives && !merged.properties) {
    const objects = alternatives.map((a) => schemaNode(doc, a, depth + 1, nextSeen)).filter((a) => a.p);
    if (objects.length) node.a = objects;
  }
  return node;
}

function mergeAllOf(doc, schema) {
  const out = { ...schema, properties: { ...(schema.properties || {}) }, required: [...(schema.required || [])] };
  delete out.allOf;
  for (const part of schema.allOf) {
    const p = deref(doc, part);
    Object.assign(out.properties, p.properties || {});
    out.required.push(...(p.required || []));
    // A named schema a route describes further ({ description, allOf: [$ref] }): the route's words,
    // the schema's type and rules.
    for (const [key, value] of Object.entries(p)) {
      if (key !== 'properties' && key !== 'required' && out[key] === undefined) out[key] = value;
    }
  }
  if (!Object.keys(out.properties).length) delete out.properties;
  return out;
}

/** A plausible example value for a schema, used by the curl sample. */
export function exampleValue(doc, input, name = '', depth = 0) {
  const schema = deref(doc, input) || {};
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    if (depth > 3) return {};
    const required = new Set(schema.required || []);
    const out = {};
    for (const [key, prop] of Object.entries(schema.properties || {})) {
      if (required.has(key)) out[key] = exampleValue(doc, prop, key, depth + 1);
    }
    return out;
  }
  if (type === 'array') return schema.items ? [exampleValue(doc, schema.items, name, depth + 1)] : [];
  if (type === 'integer' || type === 'number') return schema.minimum ?? 0;
  if (type === 'boolean') return true;
  const hex = /^\^\[0-9a-f\]\{(\d+)\}\$$/i.exec(schema.pattern || '');
  if (hex) return '0123456789abcdef'.repeat(Math.ceil(Number(hex[1]) / 16)).slice(0, Number(hex[1]));
  if (/email/i.test(name)) return 'alice@example.com';
  return 'string';
}

function shellQuote(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const HAWK_SCHEME = /hawk/i;

function curlSample(doc, method, path, op, params, security) {
  const query = params
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(exampleValue(doc, p.schema || {}, p.name)))}`);
  const urlPath = path.replace(/\{([^}]+)\}/g, (_, n) => `<${n}>`);
  const lines = [`curl -X ${method.toUpperCase()} "$TESSERA${urlPath}${query.length ? `?${query.join('&')}` : ''}"`];
  // Prefer the bearer form of the first requirement: a shell cannot sign a Hawk header.
  const schemes = doc.components?.securitySchemes || {};
  const first = security.flat().find((name) => !HAWK_SCHEME.test(schemes[name]?.scheme || '') && !HAWK_SCHEME.test(name));
  if (first) {
    const prefix = { session: 'fxs_', keyFetch: 'fxk_', accountReset: 'fxar_', passwordForgot: 'fxpf_', passwordChange: 'fxpc_' };
    const kind = Object.keys(prefix).find((k) => first.startsWith(k));
    lines.push(`  -H ${shellQuote(`Authorization: Bearer ${kind ? `${prefix[kind]}<tokenId>` : '<token>'}`)}`);
  }
  const body = op.requestBody && deref(doc, op.requestBody);
  const json = body?.content?.['application/json'];
  if (json) {
    lines.push(`  -H 'Content-Type: application/json'`);
    lines.push(`  -d ${shellQuote(JSON.stringify(exampleValue(doc, json.schema || {})))}`);
  }
  return lines.join(' \\\n');
}

/** `Name` when `schema` is a reference to `#/components/schemas/Name`, else null. */
function sharedSchemaName(schema) {
  const m = /^#\/components\/schemas\/([^/]+)$/.exec(schema?.$ref ?? '');
  return m ? m[1] : null;
}

/** The OpenAPI document reduced to what the page needs. */
export function normalizeApi(doc) {
  if (!doc || typeof doc !== 'object' || !String(doc.openapi || '').startsWith('3.')) {
    throw new Error('tessera-openapi: expected an OpenAPI 3.x document (the "openapi" field is missing or not 3.x)');
  }
  const tagOrder = (doc.tags || []).map((t) => t.name);
  const tagInfo = new Map((doc.tags || []).map((t) => [t.name, t.description || '']));
  const byTag = new Map();
  const usedIds = new Set();
  const errorSchemas = new Map();
  for (const [path, item] of Object.entries(doc.paths || {})) {
    const shared = item.parameters || [];
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...shared, ...(op.parameters || [])].map((p) => deref(doc, p));
      const security = (op.security ?? doc.security ?? []).map((req) => Object.keys(req));
      let id = op.operationId || `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, '-').replace(/^-|-$/g, '');
      while (usedIds.has(id)) id += '-x';
      usedIds.add(id);
      const body = op.requestBody ? deref(doc, op.requestBody) : null;
      const bodyType = body ? Object.keys(body.content || {})[0] : null;
      const entry = {
        id,
        m: method.toUpperCase(),
        path,
        s: op.summary || '',
        d: op.description || '',
        ...(op.deprecated ? { dep: 1 } : {}),
        sec: security,
        params: params.map((p) => ({
          n: p.name,
          in: p.in,
          ...(p.required ? { r: 1 } : {}),
          ...schemaNode(doc, p.schema || {}),
          ...(p.description ? { d: p.description } : {}),
        })),
        ...(body
          ? { body: { r: body.required ? 1 : 0, ct: bodyType, ...(body.description ? { bd: body.description } : {}), schema: schemaNode(doc, body.content?.[bodyType]?.schema || {}) } }
          : {}),
        res: Object.entries(op.responses || {}).map(([status, r]) => {
          const res = deref(doc, r);
          const ct = Object.keys(res.content || {})[0];
          const schema = ct ? res.content[ct].schema : null;
          // An error body that is a shared component (every route's ErrorBody) is named, not
          // expanded: it was most of the reference's elements, the same tree under every error status.
          const shared = Number(status) >= 400 && sharedSchemaName(schema);
          if (shared) errorSchemas.set(shared, schema);
          return {
            st: status,
            d: res.description || '',
            ...(shared ? { ref: shared } : schema ? { schema: schemaNode(doc, schema) } : {}),
          };
        }),
        curl: curlSample(doc, method, path, op, params, security),
      };
      const tag = (op.tags && op.tags[0]) || 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(entry);
    }
  }
  const tags = [...byTag.keys()].sort((a, b) => {
    const ia = tagOrder.indexOf(a);
    const ib = tagOrder.indexOf(b);
    return (ia < 0 ? 1e9 : ia) - (ib < 0 ? 1e9 : ib) || a.localeCompare(b);
  });
  const schemes = doc.components?.securitySchemes || {};
  return {
    title: doc.info?.title || 'API',
    version: doc.info?.version || '',
    description: doc.info?.description || '',
    servers: (doc.servers || []).map((s) => s.url),
    schemes: Object.entries(schemes).map(([name, s]) => ({
      n: name,
      t: s.type === 'http' ? `HTTP ${s.scheme}` : s.type === 'apiKey' ? `API key in ${s.in} \`${s.name}\`` : s.type,
      d: s.description || '',
    })),
    tags: tags.map((name) => ({ name, d: tagInfo.get(name) || '', ops: byTag.get(name) })),
    errorSchemas: [...errorSchemas].map(([name, schema]) => ({ n: name, schema: schemaNode(doc, schema) })),
  };
}

/** The URL segment of a tag's page: `Account` → `account`, `Two-step auth` → `two-step-auth`. */
export function tagSlug(name) {
  return String(name).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'other';
}

/**
 * The reduced document cut into what each page needs: `index` (the overview: schemes, and every tag
 * with its operations' id, method, path and summary — enough for the navigation and for moving old
 * `/api#operationId` links to their page) and one entry per tag with its full operations.
 */
export function splitApi(api) {
  const slugs = new Set();
  const tags = api.tags.map((tag) => {
    let slug = tagSlug(tag.name);
    while (slugs.has(slug)) slug += '-x';
    slugs.add(slug);
    return { ...tag, slug };
  });
  const { tags: _omit, ...head } = api;
  return {
    index: {
      ...head,
      tags: tags.map((t) => ({ name: t.name, slug: t.slug, d: t.d, ops: t.ops.map((op) => ({ id: op.id, m: op.m, path: op.path, s: op.s })) })),
    },
    pages: tags.map((t) => ({ slug: t.slug, tag: t, schemes: api.schemes.map((s) => s.n) })),
  };
}
