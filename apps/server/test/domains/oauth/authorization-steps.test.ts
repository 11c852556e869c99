import { describe, expect, it } from 'vitest';
import { isAppError, type AuthErrorName } from '@tessera/errors';
import { AUTHORIZATION_STEPS, type AuthorizationDoor } from '../../../src/domains/oauth/authorization/door-steps.js';
import type { Authorization, AuthorizationRequest, StepDeps } from '../../../src/domains/oauth/authorization/request.js';
import { checkAssertion } from '../../../src/domains/oauth/authorization/steps/check-assertion.js';
import { checkClient } from '../../../src/domains/oauth/authorization/steps/check-client.js';
import { checkScopes } from '../../../src/domains/oauth/authorization/steps/check-scopes.js';
import type { OAuthClient } from '../../../src/domains/oauth/clients/store.js';
import type { SessionWithAccount } from '../../../src/domains/sessions/index.js';

// Issue 23: an authorization request is checked by the steps its door lists, in order, the first
// failure answering; each step runs alone over the request value, without a server.

const CLIENT_ID = 'a0b1c2d3e4f5a6b7';
const client = { id: CLIENT_ID, redirectUris: ['https://rp.example/cb'], redirectUri: 'https://rp.example/cb', localRedirects: false, allowedScopes: ['profile'], publicClient: false, pairwiseSubjects: false } as OAuthClient;
const deps: StepDeps = { db: {} as StepDeps['db'], findClient: async (_db, id) => (id === CLIENT_ID ? client : null) };
const session = (emailVerified: boolean) => ({ uid: 'f'.repeat(32), authAt: 0, tokenVerificationId: null, verificationMethod: null, account: { emailVerified } }) as unknown as SessionWithAccount;

async function run(door: AuthorizationDoor, request: AuthorizationRequest, emailVerified = true): Promise<Authorization> {
  let a: Authorization = { session: session(emailVerified), request };
  for (const step of AUTHORIZATION_STEPS[door]) a = await step(a, deps);
  return a;
}

async function refusal(door: AuthorizationDoor, request: AuthorizationRequest, emailVerified = true): Promise<AuthErrorName | undefined> {
  try {
    await run(door, request, emailVerified);
    return undefined;
  } catch (err) {
    return isAppError(err) ? err.errorName : undefined;
  }
}

describe('authorization steps, one table per door', () => {
  it('every door finds the client before the steps that read it, and checks the scopes', () => {
    for (const steps of Object.values(AUTHORIZATION_STEPS)) {
      expect(steps.indexOf(checkClient)).toBeGreaterThanOrEqual(0);
      expect(steps.indexOf(checkScopes)).toBeGreaterThan(steps.indexOf(checkClient));
    }
    expect(AUTHORIZATION_STEPS.oauth).toEqual([checkAssertion, ...AUTHORIZATION_STEPS.auth]);
  });

  it('refines the request: the client found, the scope parsed (default profile)', async () => {
    const a = await run('auth', { client_id: CLIENT_ID });
    expect(a.client).toBe(client);
    expect(a.scope).toEqual(['profile']);
  });

  it('answers with the first step that fails, in the table\'s order', async () => {
    expect(await refusal('auth', { client_id: 'ffffffffffffffff' }, false)).toBe('ACCOUNT_UNVERIFIED');
    expect(await refusal('auth', { client_id: 'ffffffffffffffff' })).toBe('UNKNOWN_CLIENT_ID');
    expect(await refusal('auth', { client_id: CLIENT_ID, response_type: 'token', redirect_uri: 'https://evil.example/cb' })).toBe('INVALID_RESPONSE_TYPE');
    expect(await refusal('auth', { client_id: CLIENT_ID, redirect_uri: 'https://evil.example/cb', scope: 'email' })).toBe('INCORRECT_REDIRECT_URI');
    expect(await refusal('auth', { client_id: CLIENT_ID, scope: 'email', code_challenge: 'x' })).toBe('INVALID_SCOPES');
    expect(await refusal('auth', { client_id: CLIENT_ID, code_challenge: 'x', acr_values: 'AAL2' })).toBe('MISSING_PKCE_PARAMETERS');
    expect(await refusal('auth', { client_id: CLIENT_ID, acr_values: 'AAL2' })).toBe('INSUFFICIENT_ACR_VALUES');
  });

  it('the OAuth-server door refuses an assertion beside the session before anything else', async () => {
    const assertion = 'a'.repeat(60);
    expect(await refusal('oauth', { client_id: 'ffffffffffffffff', assertion }, false)).toBe('INVALID_PARAMETER');
    expect(await refusal('auth', { client_id: CLIENT_ID, assertion })).toBeUndefined();
  });
});
