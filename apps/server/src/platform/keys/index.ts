import { routesOf, type Domain } from '../../domain.js';
import { keyRoutes } from './routes.js';
import type { SigningKey } from './service.js';

// The keys domain: the server's RSA signing key and the documents that publish it.

export { generateSigningKeyPem, loadPublicJwk, loadSigningKey, publicJwkFromPem, signingKeyFromPem, type PublicJwk, type SigningKey } from './service.js';

export function createKeysDomain({ key }: { key: SigningKey }): Domain<SigningKey> {
  return { name: 'keys', service: key, rootRoutes: routesOf(keyRoutes, { key }) };
}
