import { oidcIdentityProvider, OidcVerifier, type OidcDeps, type OidcSettings } from './oidc.js';
import type { IdentityProvider } from './port.js';

// Google's adapter of the provider port: Sign in with Google's OpenID Connect id_tokens. Google
// sends no server-to-server notifications this server takes.

export function googleProvider(settings: OidcSettings, deps: OidcDeps): IdentityProvider {
  return oidcIdentityProvider('google', new OidcVerifier('google', settings, deps));
}
