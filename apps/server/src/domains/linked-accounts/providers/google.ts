import { emailClaim, OidcVerifier, truthy, type OidcDeps, type OidcSettings } from './oidc.js';
import type { IdentityProvider, ProviderIdentity } from './port.js';

// Google's adapter of the provider port: Sign in with Google's OpenID Connect id_tokens. Google
// sends no server-to-server notifications this server takes.

export function googleProvider(settings: OidcSettings, deps: OidcDeps): IdentityProvider {
  const oidc = new OidcVerifier('google', settings, deps);
  return {
    name: 'google',
    get enabled() {
      return oidc.enabled;
    },
    async verifyIdToken(idToken, nonce): Promise<ProviderIdentity> {
      const payload = await oidc.verifyIdToken(idToken, nonce);
      const email = emailClaim(payload);
      return {
        provider: 'google', subject: String(payload.sub), email, emailVerified: email !== null && truthy(payload.email_verified),
        privateEmail: truthy(payload.is_private_email), expiresAt: (payload.exp ?? 0) * 1000,
      };
    },
  };
}
