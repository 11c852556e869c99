import { withoutAssertion } from '../../assertion.js';
import type { AuthorizationStep } from '../request.js';

/** The OAuth-server door: an `assertion` beside the session token is ambiguous (400/109); never honoured (assertion.ts). */
export const checkAssertion: AuthorizationStep = (a) => ({ ...a, request: withoutAssertion(a.request) });
