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
const unconfirmed = { kind: 'sessionToken', session: 'unconfirmed', description: 'test', find: () => null } as TokenStrategy<never>;
const confirmed = { kind: 'sessionToken', session: 'aal', description: 'test', find: () => null } as TokenStrategy<never>;

async function startWith(auth: RouteAuthConfig): Promise<void> {
  const app = Fastify();
  installAuth(app, {
    strategies: { mfa: scoped, sessionToken: plain, unconfirmedSession: unconfirmed, confirmedSession: confirmed } as unknown as StrategyMap,
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

// Issue 22: a route reaches a session that proved only the password by a stated choice, never by default.
describe('routes that accept an unconfirmed session', () => {
  const route = (auth: unknown) => startWith(auth as RouteAuthConfig);
  it('refuse to start without a reason, or with a blank one', async () => {
    await expect(route('unconfirmedSession')).rejects.toThrow(/accepts an unconfirmed session .*state why in config.auth.unconfirmed/);
    await expect(route({ strategies: ['unconfirmedSession'], unconfirmed: '  ' })).rejects.toThrow(/state why/);
    await expect(route({ strategies: ['unconfirmedSession', 'confirmedSession'] })).rejects.toThrow(/state why/);
  });

  it('start with a reason; a reason on a route that needs a confirmed session is refused', async () => {
    await expect(route({ strategies: ['unconfirmedSession'], unconfirmed: 'it confirms the sign-in' })).resolves.toBeUndefined();
    await expect(route('confirmedSession')).resolves.toBeUndefined();
    await expect(route({ strategies: ['confirmedSession'], unconfirmed: 'why not' })).rejects.toThrow(/none of its strategies accepts an unconfirmed session/);
  });
});
