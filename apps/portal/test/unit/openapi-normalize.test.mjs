import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { normalizeApi, exampleValue } from '../../src/plugins/openapi/normalize.js';
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

test('error responses carry the shared error schema', () => {
  const res = op('accountCreate').res.find((r) => r.st === '400');
  assert.match(res.d, /ACCOUNT_EXISTS/);
  assert.deepEqual(res.schema.p.filter((p) => p.r).map((p) => p.n), ['code', 'errno', 'error', 'message']);
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
