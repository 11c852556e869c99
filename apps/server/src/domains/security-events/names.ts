// The security events of the account's core floors, and what each means. The security-events
// domain's manifest declares them; a domain that records events of its own declares them in its
// manifest (`securityEvents`), and the composed list is the portal's page and the route's enum.

export const SECURITY_EVENTS = {
  'account.create': 'The account was created: by sign-up, or as a stub account by an allowed relying party.',
  'account.email_verified': 'The primary address was confirmed: the sign-up code or link, or the setup link of a stub account (`additionalInfo.method`: `code`, `link` or `setup`).',
} as const;

/**
 * Every event name, for the types: these, and those a domain declares in its manifest's
 * `securityEvents` and adds here from its folder (`declare module '../security-events/index.js'`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}

export type SecurityEventName = keyof SecurityEventRegistry & string;
