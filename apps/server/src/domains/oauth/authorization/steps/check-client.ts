import { appError } from '@tessera/errors';
import type { AuthorizationStep } from '../request.js';

/** The relying party `client_id` is registered (400/162); later steps read it. */
export const checkClient: AuthorizationStep = async (a, { db, findClient }) => {
  const client = await findClient(db, a.request.client_id);
  if (!client) throw appError('UNKNOWN_CLIENT_ID', { clientId: a.request.client_id });
  return { ...a, client };
};
