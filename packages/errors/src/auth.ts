import type { ErrorDefinition } from './catalogue.js';
import { REQUEST_ERRORS } from './auth/requests.js';
import { SIGN_IN_ERRORS } from './auth/sign-in.js';
import { RELYING_PARTY_ERRORS } from './auth/relying-parties.js';
import { SERVICE_ERRORS } from './auth/service.js';

/**
 * The auth server's error catalogue (spec 2 §8; errnos and extras from protocol.md §6).
 * Numbers are frozen: clients switch on them. Add new errors at the end of their range, never
 * renumber, never reuse. The portal's error reference page is generated from this object. Its
 * entries live in auth/, one file per errno range, joined here in errno order.
 */
export const AUTH_ERRORS = {
  ...REQUEST_ERRORS,
  ...SIGN_IN_ERRORS,
  ...RELYING_PARTY_ERRORS,
  ...SERVICE_ERRORS,
} as const satisfies Record<string, ErrorDefinition>;

export type AuthErrorName = keyof typeof AUTH_ERRORS;
