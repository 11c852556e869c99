import { oidcIdentityProvider, OidcVerifier, type OidcDeps, type OidcSettings } from './oidc.js';
import { refused, type IdentityProvider, type ProviderEvent } from './port.js';

// Apple's adapter of the provider port: Sign in with Apple's id_tokens, and its server-to-server
// notifications (a JWT Apple signs whose `events` claim says what happened to a person's Apple
// ID). Apple may hide the address behind a private relay address (`is_private_email`).

/** How old a notification may be (its `iat`). */
const NOTIFICATION_MAX_AGE_SECONDS = 86_400;

export function appleProvider(settings: OidcSettings, deps: OidcDeps): IdentityProvider {
  const oidc = new OidcVerifier('apple', settings, deps);
  const shared = oidcIdentityProvider('apple', oidc);
  return {
    name: shared.name,
    get enabled() {
      return shared.enabled;
    },
    verifyIdToken: shared.verifyIdToken,
    async verifyNotification(jwt): Promise<ProviderEvent> {
      const payload = await oidc.verifyJwt(jwt, 'payload', { requiredClaims: ['iat'], maxTokenAgeSeconds: NOTIFICATION_MAX_AGE_SECONDS });
      return parseAppleEvent(payload.events);
    },
  };
}

/** The `events` claim of an Apple notification: a JSON string (or object) with type and sub. */
function parseAppleEvent(raw: unknown): ProviderEvent {
  let events: unknown = raw;
  if (typeof raw === 'string') {
    try {
      events = JSON.parse(raw);
    } catch {
      events = null;
    }
  }
  const e = events as { type?: unknown; sub?: unknown; email?: unknown } | null;
  if (!e || typeof e.type !== 'string' || typeof e.sub !== 'string') throw refused('payload', 'The Apple notification carries no event (events.type and events.sub)');
  return { type: e.type, subject: e.sub, email: typeof e.email === 'string' && e.email.length <= 255 ? e.email : null };
}
