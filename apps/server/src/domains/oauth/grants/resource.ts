import { appError } from '@tessera/errors';

// RFC 8707 resource indicators at /token: the resource server the tokens are meant for, added to
// the audience of the id_token and of a JWT access token.

/** RFC 8707 §2: `resource` is an absolute URI without a fragment. */
export function checkResource(resource: string | undefined): void {
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
}
