import { checkAccount } from './steps/check-account.js';
import { checkAcr } from './steps/check-acr.js';
import { checkAssertion } from './steps/check-assertion.js';
import { checkClient } from './steps/check-client.js';
import { checkPkce } from './steps/check-pkce.js';
import { checkRedirectUri } from './steps/check-redirect-uri.js';
import { checkResponseType } from './steps/check-response-type.js';
import { checkScopes } from './steps/check-scopes.js';
import type { AuthorizationStep } from './request.js';

// The checks of an authorization request, one table per door, run in order: the first that fails
// answers. A door that needs another check (the browser flow's prompt, login_hint, max_age,
// consent, id_token_hint) adds its step to its table.

const CHECKS: readonly AuthorizationStep[] = [checkAccount, checkClient, checkResponseType, checkRedirectUri, checkScopes, checkPkce, checkAcr];

export const AUTHORIZATION_STEPS = {
  /** POST /oauth/authorization (auth-server errnos). */
  auth: CHECKS,
  /** POST /authorization (OAuth-server errnos): its body may carry an `assertion`, refused beside the session. */
  oauth: [checkAssertion, ...CHECKS],
} as const satisfies Record<string, readonly AuthorizationStep[]>;

export type AuthorizationDoor = keyof typeof AUTHORIZATION_STEPS;
