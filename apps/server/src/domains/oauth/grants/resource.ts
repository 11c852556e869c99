import { appError } from '@tessera/errors';
import type { OAuthClient } from '../clients/store.js';

// RFC 8707 resource indicators at /token: the resource server the tokens are meant for, added to
// the audience of the id_token and of a JWT access token. A client names only the resources it is
// registered for (`allowedResources`): otherwise any caller holding a grant could have Tessera sign
// tokens whose audience is a resource server that never trusted that client.

/**
 * RFC 8707 §2: `resource` is an absolute URI without a fragment (else 400/107), and one the client
 * is registered for, compared exactly (else `invalid_target`, 400/224; 400/122 on the OAuth server's paths).
 */
export function checkResource(client: Pick<OAuthClient, 'allowedResources'>, resource: string | undefined): void {
  if (resource === undefined) return;
  let ok = !resource.includes('#') && !/\s/.test(resource);
  if (ok) {
    try {
      new URL(resource);
    } catch {
      ok = false;
    }
  }
  if (!ok) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['resource'], message: 'resource must be an absolute URI without a fragment' } });
  if (!client.allowedResources.includes(resource)) {
    throw appError('INVALID_TARGET', { resource }, client.allowedResources.length
      ? `Invalid target: this client may name only the resources it is registered for (${client.allowedResources.join(', ')}), compared exactly`
      : 'Invalid target: this client is registered for no resource; the operator adds them (allowedResources, or --resource with npm run admin -- clients add)');
  }
}
