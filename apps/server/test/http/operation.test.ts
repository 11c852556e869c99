import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { Type } from '@sinclair/typebox';
import { appError } from '@tessera/errors';
import { installErrorHandling } from '../../src/http/errors.js';
import { operation, registerOperations } from '../../src/http/operation.js';
import { ErrorBody } from '../../src/http/responses.js';

// One operation, two doors: each door is a route of its own (path, operationId, error catalogue),
// and the handler sees the same domain values whichever door was used.

const seen: { caller: string; name: string; ip: string; language: string | null }[] = [];

const greet = operation({
  tags: ['Test'], summary: 'Greet someone',
  input: { body: Type.Object({ name: Type.String({ maxLength: 8 }) }, { additionalProperties: false }) },
  output: Type.Object({ greeting: Type.String(), seconds: Type.Integer() }),
  errors: (door) => ['ACCOUNT_UNKNOWN', ...door],
  rateLimit: { actions: ['greet'] },
  handle: ({ body, caller, request }) => {
    if (body.name === 'nobody') throw appError('ACCOUNT_UNKNOWN');
    seen.push({ caller, name: body.name, ip: request.ip, language: request.acceptLanguage });
    return { greeting: `hello ${body.name}`, seconds: 60 };
  },
  doors: [
    { method: 'POST', path: '/greet', operationId: 'greet', auth: 'none', caller: () => 'rest', errors: ['SESSION_UNVERIFIED'] },
    {
      method: 'POST', path: '/greet', prefix: '/oauth', operationId: 'oauthGreet', auth: 'none', catalogue: 'oauth',
      caller: (req) => String(req.headers['x-caller']), summary: (s) => `${s} (OAuth server path)`,
      wire: {
        body: Type.Object({ who: Type.String({ maxLength: 8 }) }, { additionalProperties: false }),
        input: ({ body }) => ({ body: { name: (body as { who: string }).who } }),
        output: Type.Object({ greeting: Type.String(), expires_in: Type.Integer() }),
        reply: (v) => ({ greeting: v.greeting, expires_in: v.seconds }),
      },
    },
  ],
});

const other = operation({
  tags: ['Test'], summary: 'Say nothing',
  input: {},
  output: Type.Object({}),
  errors: [],
  handle: () => ({}),
  doors: [
    { method: 'DELETE', path: '/greet', operationId: 'greetDelete', auth: 'none', caller: () => null },
    { method: 'DELETE', path: '/greet', prefix: '/oauth', operationId: 'oauthGreetDelete', auth: 'none', caller: () => null, headers: { 'cache-control': 'no-store' } },
  ],
});

describe('operations with doors', () => {
  let app: FastifyInstance;
  const routes: RouteOptions[] = [];
  beforeAll(async () => {
    app = Fastify();
    app.addSchema(ErrorBody);
    installErrorHandling(app, { infoUrl: 'http://localhost/errors' });
    app.addHook('onRoute', (route) => { routes.push(route); });
    registerOperations(app, [greet, other]);
    await app.ready();
  });
  afterAll(() => app.close());

  it('registers one route per door, door by door, each with its path, operationId and summary', () => {
    expect(routes.map((r) => `${String(r.method)} ${r.url} ${(r.schema as { operationId: string }).operationId}`)).toEqual([
      'POST /greet greet', 'DELETE /greet greetDelete', 'POST /oauth/greet oauthGreet', 'DELETE /oauth/greet oauthGreetDelete',
    ]);
    expect((routes[2]!.schema as { summary: string }).summary).toBe('Greet someone (OAuth server path)');
    expect(routes[0]!.config).toMatchObject({ auth: 'none', rateLimit: { actions: ['greet'] } });
    expect(routes[2]!.config).toMatchObject({ catalogue: 'oauth', rateLimit: { actions: ['greet'] } });
  });

  it('declares each door\'s errors from its catalogue, the door\'s own where the operation places them', () => {
    const declared = (r: RouteOptions) => Object.values(r.schema!.response as Record<string, { 'x-errors'?: { name: string; catalogue?: string }[] }>)
      .flatMap((s) => s['x-errors'] ?? []);
    const rest = declared(routes[0]!);
    expect(rest.map((e) => e.name)).toEqual(expect.arrayContaining(['ACCOUNT_UNKNOWN', 'SESSION_UNVERIFIED', 'INVALID_PARAMETER']));
    expect(rest.every((e) => e.catalogue === undefined)).toBe(true);
    expect(declared(routes[2]!).some((e) => e.catalogue === 'oauth' && e.name === 'INVALID_PARAMETER')).toBe(true);
    // No body, query or params: no input errors.
    expect(declared(routes[1]!).map((e) => e.name)).toEqual(['UNEXPECTED_ERROR']);
  });

  it('gives the handler domain values whichever door, and shapes the wire at the door', async () => {
    seen.length = 0;
    const a = await app.inject({ method: 'POST', url: '/greet', payload: { name: 'ann' }, headers: { 'accept-language': 'fr-CA, fr;q=0.8' } });
    expect(a.json()).toEqual({ greeting: 'hello ann', seconds: 60 });
    const b = await app.inject({ method: 'POST', url: '/oauth/greet', payload: { who: 'bob' }, headers: { 'x-caller': 'client-1' } });
    expect(b.json()).toEqual({ greeting: 'hello bob', expires_in: 60 });
    expect(seen).toEqual([
      { caller: 'rest', name: 'ann', ip: '127.0.0.1', language: 'fr-CA, fr' },
      { caller: 'client-1', name: 'bob', ip: '127.0.0.1', language: null },
    ]);
  });

  it('validates each door against its own schemas and sends its headers', async () => {
    expect((await app.inject({ method: 'POST', url: '/oauth/greet', payload: { name: 'ann' } })).statusCode).toBe(400);
    expect((await app.inject({ method: 'POST', url: '/greet', payload: { name: 'nobody' } })).json()).toMatchObject({ errno: 102 });
    const gone = await app.inject({ method: 'DELETE', url: '/oauth/greet' });
    expect(gone.headers['cache-control']).toBe('no-store');
    expect((await app.inject({ method: 'DELETE', url: '/greet' })).headers['cache-control']).toBeUndefined();
  });
});
