import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { normalizeApi, exampleValue, schemaNode, splitApi, tagSlug } from '../../src/plugins/openapi/normalize.js';
import { fixtureSpec } from '../build-site.mjs';

const doc = JSON.parse(readFileSync(fixtureSpec, 'utf8'));
const api = normalizeApi(doc);
const op = (id) => api.tags.flatMap((t) => t.ops).find((o) => o.id === id);

test('operations are grouped by tag in the declared order', () => {
  assert.deepEqual(api.tags.map((t) => t.name), ['accounts', 'sessions', 'devices', 'passwords']);
  assert.deepEqual(api.tags[0].ops.map((o) => o.id), ['accountCreate', 'accountLogin', 'accountKeys']);
});

test('method, path, summary, security and parameters are kept', () => {
  const keys = op('accountKeys');
  assert.equal(keys.m, 'GET');
  assert.equal(keys.path, '/v1/account/keys');
  assert.deepEqual(keys.sec, [['keyFetchTokenBearer'], ['keyFetchTokenHawk']]);
  const cmds = op('deviceCommands');
  const limit = cmds.params.find((p) => p.n === 'limit');
  assert.equal(limit.in, 'query');
  assert.ok(limit.c.includes('max 100') && limit.c.includes('default 100'));
  assert.equal(cmds.params.find((p) => p.n === 'index').r, 1);
});

test('request bodies resolve $ref and mark required fields', () => {
  const body = op('accountCreate').body;
  assert.equal(body.r, 1);
  const props = Object.fromEntries(body.schema.p.map((p) => [p.n, p]));
  assert.equal(props.authPW.r, 1);
  assert.ok(props.authPW.c.includes('pattern ^[0-9a-f]{64}$'));
  assert.deepEqual(props.metricsContext.p.map((p) => p.n), ['flowId', 'flowBeginTime', 'deviceId']);
});

test('error responses name the shared error schema, which is described once', () => {
  const res = op('accountCreate').res.find((r) => r.st === '400');
  assert.match(res.d, /ACCOUNT_EXISTS/);
  assert.equal(res.ref, 'Error');
  assert.equal(res.schema, undefined);
  const [shared] = api.errorSchemas;
  assert.equal(shared.n, 'Error');
  assert.deepEqual(shared.schema.p.filter((p) => p.r).map((p) => p.n), ['code', 'errno', 'error', 'message']);
  assert.deepEqual(splitApi(api).index.errorSchemas, api.errorSchemas);
});

test('curl samples use the bearer form and an example body', () => {
  assert.match(op('sessionStatus').curl, /Authorization: Bearer fxs_<tokenId>/);
  assert.match(op('accountCreate').curl, /-d '\{"email":"alice@example.com","authPW":"0123456789abcdef/);
  assert.match(op('deviceCommands').curl, /\?index=0"/);
  assert.equal(exampleValue(doc, { type: 'string', pattern: '^[0-9a-f]{32}$' }).length, 32);
});

test('a document that is not OpenAPI 3 is refused', () => {
  assert.throws(() => normalizeApi({ swagger: '2.0' }), /OpenAPI 3/);
  assert.throws(() => normalizeApi({ openapi: '3.1.0', paths: { '/x': { get: { responses: { 200: { $ref: '#/nope' } } } } } }), /unresolved \$ref/);
});

test('the reference is split into an overview and one page per tag', () => {
  const { index, pages } = splitApi(api);
  assert.deepEqual(pages.map((p) => p.slug), ['accounts', 'sessions', 'devices', 'passwords']);
  // The overview keeps what the navigation and the moved-anchor redirect need, not the schemas.
  assert.deepEqual(index.tags[0].ops[0], { id: 'accountCreate', m: 'POST', path: '/v1/account/create', s: op('accountCreate').s });
  assert.equal(index.schemes.length, api.schemes.length);
  // Each page has all of its own operations and none of the others'.
  assert.deepEqual(pages[0].tag.ops, api.tags[0].ops);
  assert.deepEqual(pages.flatMap((p) => p.tag.ops.map((o) => o.id)).sort(), api.tags.flatMap((t) => t.ops.map((o) => o.id)).sort());
  assert.deepEqual(pages[0].schemes, api.schemes.map((s) => s.n));
});

test('tag slugs are URL segments and stay distinct', () => {
  assert.equal(tagSlug('Two-step auth'), 'two-step-auth');
  assert.equal(tagSlug('Miscellaneous'), 'miscellaneous');
  assert.equal(tagSlug('***'), 'other');
  const { pages } = splitApi({ ...api, tags: [{ name: 'A b', d: '', ops: [] }, { name: 'a-B', d: '', ops: [] }] });
  assert.deepEqual(pages.map((p) => p.slug), ['a-b', 'a-b-x']);
});

test('a named schema a route describes further shows the route\'s words with the schema\'s type and rules', () => {
  const named = { components: { schemas: { EmailAddress: { type: 'string', maxLength: 255, format: 'email-address', description: 'The rules.' } } } };
  const node = schemaNode(named, { description: 'The new address.', allOf: [{ $ref: '#/components/schemas/EmailAddress' }] });
  assert.deepEqual(node, { t: 'string', d: 'The new address.', c: ['format email-address', 'max length 255'] });
});
