import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { appError } from '@tessera/errors';
import { installDeclaredErrorCheck, type UndeclaredError } from '../../src/http/declared-errors.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { ErrorBody, responses } from '../../src/http/responses.js';
import { Type } from '@sinclair/typebox';

// The check that keeps each route's declared errors true: what it lets through and what it stops.
describe('the undeclared-error check (test mode)', () => {
  let app: FastifyInstance;
  const violations: UndeclaredError[] = [];
  beforeAll(async () => {
    app = Fastify();
    app.addSchema(ErrorBody);
    installErrorHandling(app, { infoUrl: 'http://localhost/errors' });
    installDeclaredErrorCheck(app, violations);
    const schema = { response: responses(Type.Object({}), ['ACCOUNT_UNKNOWN'], { input: false }) };
    app.get('/declared', { schema }, async () => { throw appError('ACCOUNT_UNKNOWN'); });
    app.get('/undeclared', { schema }, async () => { throw appError('INCORRECT_PASSWORD', { email: 'a@b.example' }); });
    app.get('/fine', { schema }, async () => ({}));
    await app.ready();
  });
  afterAll(() => app.close());

  it('lets a declared error and a success through unchanged', async () => {
    const declared = await app.inject({ method: 'GET', url: '/declared' });
    expect(declared.statusCode).toBe(400);
    expect(declared.json()).toMatchObject({ errno: 102 });
    expect((await app.inject({ method: 'GET', url: '/fine' })).statusCode).toBe(200);
    expect(violations).toEqual([]);
  });

  it('turns an undeclared error into a 500 naming the route and errno, and records it', async () => {
    const r = await app.inject({ method: 'GET', url: '/undeclared' });
    expect(r.statusCode).toBe(500);
    expect(r.json().message).toMatch(/GET \/undeclared answered 400 errno 103 .*does not declare/);
    expect(violations).toEqual([expect.objectContaining({ route: 'GET /undeclared', status: 400, errno: 103 })]);
  });
});
