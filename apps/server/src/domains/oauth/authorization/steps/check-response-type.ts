import { appError } from '@tessera/errors';
import type { AuthorizationStep } from '../request.js';

/** Only the code flow: `response_type` is `code` or absent (400/168; the implicit flow is not offered). */
export const checkResponseType: AuthorizationStep = (a) => {
  if ((a.request.response_type ?? 'code') !== 'code') throw appError('INVALID_RESPONSE_TYPE', {}, 'Only response_type=code is supported (the implicit flow is not)');
  return a;
};
