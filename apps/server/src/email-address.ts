/**
 * Addresses compare case-insensitively; the stored spelling is kept for display and the v1 salt.
 * Every table keyed by an address (emails, email_bounces) stores this form beside the original.
 */
export function normalizeEmail(email: string): string {
  return email.toLowerCase();
}
