import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installAuth, type RouteAuthConfig, type StrategyMap, type TokenStrategy } from '../../src/http/auth.js';
import { NonceCache } from '../../src/http/hawk.js';
import { systemClock } from '../../src/clock.js';
import '../../src/domains/mfa/index.js';
import '../../src/domains/sessions/index.js';

// Scoped strategies (http/auth.ts): a route naming one must declare a scope it knows, so an /mfa
// route cannot start up accepting a step-up token made for any action.

const scoped = { kind: 'jwt', scopes: ['mfa:password', 'mfa:2fa'], description: 'test', find: () => null } as TokenStrategy<never>;
const plain = { kind: 'sessionToken', description: 'test', find: () => null } as TokenStrategy<never>;

async function startWith(auth: RouteAuthConfig): Promise<void> {
  const app = Fastify();
  installAuth(app, {
    strategies: { mfa: scoped, sessionToken: plain } as unknown as StrategyMap,
    hawk: { host: 'localhost', port: 9000, skewSeconds: 60 },
    nonces: new NonceCache({ size: 1000, perToken: 10, skewSeconds: 60 }),
    clock: systemClock,
  });
  app.post('/v1/mfa/thing', { config: { auth } }, async () => ({}));
  try {
    await app.ready();
  } finally {
    await app.close();
  }
}

describe('routes with scoped strategies', () => {
  it('refuse to start without a scope, with an unknown one, or with a scope on an unscoped strategy', async () => {
    await expect(startWith('mfa')).rejects.toThrow(/POST \/v1\/mfa\/thing uses the scoped strategy mfa without declaring auth.scope/);
    await expect(startWith({ strategies: ['mfa'], scope: 'mfa:everything' })).rejects.toThrow(/does not know/);
    await expect(startWith({ strategies: ['sessionToken'], scope: 'mfa:2fa' })).rejects.toThrow(/none of its strategies/);
  });

  it('start with a scope the strategy knows', async () => {
    await expect(startWith({ strategies: ['mfa'], scope: 'mfa:password' })).resolves.toBeUndefined();
  });
});
