import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, type TestServer } from '../harness.js';
import { expectError, rawRequest } from '../helpers.js';

// Issue 22: an OpenAPI fuzzer found places where the document and the server disagree. The
// document is read from the running server, so each test checks the promise clients actually get.

type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };
type Operation = {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  parameters?: { in: string; name: string; schema?: Schema }[];
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};
type Schema = { type?: string; pattern?: string; maxLength?: number; minLength?: number; format?: string; description?: string; properties?: Record<string, Schema>; $ref?: string; allOf?: Schema[] };

/** A schema as it applies: a named component for its reference, the wrapped one for an `allOf` of one. */
function resolved(doc: Doc, schema: Schema): Schema {
  if (schema.$ref) return resolved(doc, doc.components!.schemas![schema.$ref.replace('#/components/schemas/', '')]!);
  if (schema.allOf?.length === 1) return { ...resolved(doc, schema.allOf[0]!), ...(schema.description ? { description: schema.description } : {}) };
  return schema;
}

const SUPPORT_SECRET = 's'.repeat(40);
const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** Every property of a request body or query whose name says it holds an address. */
function addressFields(doc: Doc): { where: string; schema: Schema }[] {
  const out: { where: string; schema: Schema }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const props = { ...op.requestBody?.content?.['application/json']?.schema?.properties };
      for (const p of op.parameters ?? []) if (p.schema) props[p.name] = p.schema;
      for (const [name, schema] of Object.entries(props)) {
        const field = resolved(doc, schema);
        if (/email$/i.test(name) && field.type === 'string') out.push({ where: `${method.toUpperCase()} ${path} ${name}`, schema: field });
      }
    }
  }
  return out;
}

describe.each(httpDialects())('the OpenAPI document says what the server does (%s)', (dialect) => {
  let t: TestServer;
  let doc: Doc;
  let emailSchema: Schema;
  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { SUPPORT_SECRET, RATE_LIMIT_IGNORE_IPS: '127.0.0.1' } });
    doc = (await rawRequest(t.url, 'GET', '/openapi.json')).body as unknown as Doc;
    emailSchema = resolved(doc, doc.paths['/v1/account/status']!.post!.requestBody!.content!['application/json']!.schema!.properties!.email!);
  });
  afterAll(async () => t?.close());

  /** What the document's schema of an address accepts, as far as a schema validator can tell. */
  const documentAccepts = (email: string) => [...email].length <= emailSchema.maxLength! && new RegExp(emailSchema.pattern!, 'u').test(email);
  const status = (email: string) => rawRequest(t.url, 'POST', '/account/status', { body: { email } });

  describe('email addresses', () => {
    // Each address the server refuses, with the words its 400 must use for the broken rule.
    const refused: [string, RegExp][] = [
      ['0@0.0', /last label of the domain must not be a number/],
      ['a@example.123', /last label of the domain must not be a number/],
      ['a@example.0x1f', /last label of the domain must not be a number/],
      ['a@example.0X', /last label of the domain must not be a number/],
      [`${'l'.repeat(65)}@example.com`, /local part \(before the @\) is longer than 64 characters/],
      // 1 + @ + 253: a longer domain makes the whole address too long.
      [`a@${Array.from({ length: 3 }, () => 'd'.repeat(63)).join('.')}.${'d'.repeat(63)}`, /longer than 255 characters/],
      [`a@${'d'.repeat(64)}.example`, /label of the domain is longer than 63 characters/],
      ['a@b', /two or more labels/],
      ['a..b@example.com', /local part \(before the @\) must be/],
      ['"q"@example.com', /local part \(before the @\) must be/],
      ['a@-x.example', /starts or ends with a hyphen/],
      ['a@ex_ample.com', /may hold only letters, digits, hyphens and dots/],
      ['a b@example.com', /space, a control character/],
      ['a@example.com.', /empty label/],
      ['nobody.example.com', /no @/],
    ];
    // Addresses the pattern cannot judge: the document's description names the rule instead.
    const refusedBeyondPattern: [string, RegExp][] = [
      ['a@xn--zz.example', /does not convert to ASCII under IDNA/],
      ['a@example.\uff10', /does not convert to ASCII under IDNA/],
      // 31 different ideographs a label: the Punycode of each is longer than 63 characters.
      [`a@${Array.from({ length: 2 }, (_, l) => Array.from({ length: 31 }, (_, i) => String.fromCodePoint(0x4e00 + l * 997 + i * 131)).join('')).join('.')}.jp`, /label of the domain's ASCII \(IDNA\) form is longer than 63 characters/],
      [`a@${Array.from({ length: 6 }, (_, l) => Array.from({ length: 15 }, (_, i) => String.fromCodePoint(0x4e00 + l * 997 + i * 131)).join('')).join('.')}.jp`, /domain's ASCII \(IDNA\) form is longer than 253 characters/],
      // 254 characters as sent, 318 once lower-cased (the database's column holds 255).
      [`${'\u0130'.repeat(64)}@${'d'.repeat(62)}.${'d'.repeat(62)}.${'d'.repeat(55)}.example`, /longer than 255 characters once lower-cased/],
    ];
    const accepted = [
      `o'brien+${randomHex(3)}@example.com`, `ünï.${randomHex(3)}@例え.jp`, `x@${randomHex(3)}.münchen.de`, `a@b${randomHex(3)}.0xg`,
      `${'l'.repeat(64)}@example.com`, `a@${Array.from({ length: 3 }, () => 'd'.repeat(63)).join('.')}.${randomHex(30)}`,
      `a@${randomHex(3)}.example.1a`, `x@${randomHex(3)}.xn--mnchen-3ya.de`,
    ];

    it('the document refuses what the pattern can say, and the 400 names the broken rule', async () => {
      for (const [email, rule] of refused) {
        expect(documentAccepts(email), `the document accepts ${email}`).toBe(false);
        const r = await status(email);
        expectError(r, 'INVALID_PARAMETER', 400);
        expect((r.body.validation as { keys: string[] }).keys, email).toEqual(['email']);
        expect(r.body.message, email).toMatch(rule);
      }
    });

    it('what the pattern cannot say is in the description, and the 400 names it', async () => {
      expect(emailSchema.description).toMatch(/IDNA/);
      expect(emailSchema.description).toMatch(/once lower-cased/);
      for (const [email, rule] of refusedBeyondPattern) {
        expect(documentAccepts(email), email).toBe(true);
        const r = await status(email);
        expectError(r, 'INVALID_PARAMETER', 400);
        expect(r.body.message, email).toMatch(rule);
      }
    });

    it('an address longer than 255 characters once lower-cased is refused at sign-up (PostgreSQL answered 500: varchar(255))', async () => {
      const email = `${'\u0130'.repeat(64)}@${'d'.repeat(62)}.${'d'.repeat(62)}.${'d'.repeat(55)}.example`;
      const r = await rawRequest(t.url, 'POST', '/account/create', { body: { email, authPW: randomHex(32) } });
      expectError(r, 'INVALID_PARAMETER', 400);
      expect(r.body.message).toMatch(/longer than 255 characters once lower-cased/);
    });

    it('an address at the limits is accepted by the document and the server, and one lower-cased to 255 characters is stored', async () => {
      for (const email of accepted) {
        expect(documentAccepts(email), email).toBe(true);
        const r = await status(email);
        expect(r.status, `${email}: ${r.text}`).toBe(200);
      }
      const turkish = `${'\u0130'.repeat(2)}${randomHex(3)}@${Array.from({ length: 3 }, () => 'd'.repeat(62)).join('.')}.h${randomHex(23)}.example`;
      expect([[...turkish].length, [...turkish.toLowerCase()].length]).toEqual([253, 255]);
      const created = await rawRequest(t.url, 'POST', '/account/create', { body: { email: turkish, authPW: randomHex(32) } });
      expect(created.status, created.text).toBe(200);
    });

    it('every route that takes an address uses the one schema (the support ticket too)', () => {
      const fields = addressFields(doc);
      expect(fields.map((f) => f.where)).toEqual(expect.arrayContaining(['POST /v1/support/ticket email', 'POST /v1/account/create email', 'POST /v1/recovery_email email', 'POST /v1/account/login/send_unblock_code email', 'POST /v1/password/forgot/send_code email']));
      for (const { where, schema } of fields) {
        expect({ where, pattern: schema.pattern, maxLength: schema.maxLength, format: schema.format }).toEqual({
          where, pattern: emailSchema.pattern, maxLength: emailSchema.maxLength, format: 'email-address',
        });
      }
    });

    it('a support ticket refuses what the schema refuses, with the same message, and takes what it accepts', async () => {
      const send = (email: string) => fetch(`${t.url}/v1/support/ticket`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'tessera-support-secret': SUPPORT_SECRET },
        body: JSON.stringify({ email, productName: 'Tessera', topic: 'sign-in', message: 'help' }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
      const numeric = await send('0@0.0');
      expect(numeric.status).toBe(400);
      expect(numeric.body).toMatchObject({ errno: 107, validation: { keys: ['email'] } });
      expect(numeric.body.message).toMatch(/last label of the domain must not be a number/);
      // An internationalised address passes validation (no helpdesk webhook here: 503/202).
      const unicode = await send(`ünï@例え.jp`);
      expect(unicode.body.errno, JSON.stringify(unicode.body)).toBe(202);
    });
  });

  describe('GET /v1/authorization', () => {
    it('is documented as the HTML page it answers, and its errors as JSON', async () => {
      const op = doc.paths['/v1/authorization']!.get!;
      expect(Object.keys(op.responses['200']!.content!)).toEqual(['text/html']);
      for (const [code, response] of Object.entries(op.responses)) {
        if (Number(code) >= 400) expect(Object.keys(response.content!), code).toEqual(['application/json']);
      }
      const page = await fetch(`${t.url}/v1/authorization?client_id=${randomHex(8)}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    });
  });

  describe('a method a path does not have', () => {
    const methodsOf = (path: string) => Object.keys(doc.paths[path]!).filter((m) => METHODS.includes(m)).map((m) => m.toUpperCase());
    const concrete = (path: string) => path.replace(/\{[^}]+\}/g, randomHex(16));

    it('answers 405 with Allow naming the methods the path has, in the catalogue\'s shape', async () => {
      const r = await rawRequest(t.url, 'GET', '/account/login');
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(r.body).toMatchObject({ code: 405, errno: 999, error: 'Method Not Allowed' });
      expect(r.body.message).toMatch(/GET \/v1\/account\/login.*POST/);
      expect(r.body.info).toMatch(/#errno-999$/);
      const put = await rawRequest(t.url, 'PUT', '/account/status', { body: { email: newEmail() } });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
      // A query string does not change the path.
      expect((await rawRequest(t.url, 'DELETE', '/account/create', { query: { keys: 'true' } })).headers.get('allow')).toBe('POST');
      // Outside /v1 too.
      const discovery = await rawRequest(t.url, 'POST', '/.well-known/openid-configuration', { body: {} });
      expect(discovery.status).toBe(405);
      expect(discovery.headers.get('allow')).toBe('GET, HEAD');
    });

    it('walks every documented path: each undocumented method is 405 and Allow matches the document', async () => {
      const templates = Object.keys(doc.paths).map((p) => ({ path: p, re: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
      // Another template can take the same URL with that method (GET /v1/recoveryKey/exists is GET /v1/recoveryKey/{recoveryKeyId}).
      const takenElsewhere = (path: string, url: string, method: string) => templates.some((o) => o.path !== path && o.re.test(url) && methodsOf(o.path).includes(method));
      let checked = 0;
      for (const path of Object.keys(doc.paths)) {
        const documented = methodsOf(path);
        const url = concrete(path);
        for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((m) => !documented.includes(m) && !takenElsewhere(path, url, m))) {
          checked++;
          const r = await rawRequest(t.url, method, url, method === 'GET' ? {} : { body: {} });
          expect(r.status, `${method} ${path}: ${r.text}`).toBe(405);
          const allow = (r.headers.get('allow') ?? '').split(', ').filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
          // Every method of every template that takes the URL.
          const expected = new Set(templates.filter((o) => o.re.test(url)).flatMap((o) => methodsOf(o.path)));
          expect(allow.sort(), `${method} ${path}`).toEqual([...expected].sort());
        }
      }
      expect(checked).toBeGreaterThan(4 * 100);
    });

    it('HEAD and OPTIONS: a GET path answers HEAD; other paths answer 405 with Allow', async () => {
      const head = await fetch(`${t.url}/v1/authorization`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      const headOnPost = await fetch(`${t.url}/v1/account/create`, { method: 'HEAD' });
      expect(headOnPost.status).toBe(405);
      expect(headOnPost.headers.get('allow')).toBe('POST');
      const options = await fetch(`${t.url}/v1/account/create`, { method: 'OPTIONS' });
      expect(options.status).toBe(405);
      expect(options.headers.get('allow')).toBe('POST');
    });

    it('an unknown path stays 404', async () => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const r = await rawRequest(t.url, method, '/no/such/route', method === 'GET' ? {} : { body: {} });
        expectError(r, 'ENDPOINT_NOT_FOUND', 404);
        expect(r.headers.get('allow')).toBeNull();
      }
      // A known path with a trailing slash is another path.
      expectError(await rawRequest(t.url, 'GET', '/account/create/'), 'ENDPOINT_NOT_FOUND', 404);
    });
  });
});
