// The password policy, one for every place a password is chosen: the SDK's signUp, changePassword
// and resetPassword, the `tessera` CLI, and the server's /complete_reset_password and /finish_setup
// pages (which load this module in the browser). The server never sees the password (onepw sends only
// authPW), so the rule can only be kept by clients; it lives here because the SDK and the server
// both depend on this package.

/** The fewest characters (Unicode code points) a new password may have. */
export const PASSWORD_MIN_LENGTH = 8;

/** What is wrong with a refused password. */
export type PasswordProblem = 'too-short' | 'is-email';

/** The sentence shown for each problem. */
export const PASSWORD_REASONS: Readonly<Record<PasswordProblem, string>> = {
  'too-short': `The password must have at least ${PASSWORD_MIN_LENGTH} characters.`,
  'is-email': 'The password must not be your email address.',
};

export interface PasswordCheck {
  problem: PasswordProblem;
  /** A sentence to show the person choosing the password. */
  reason: string;
}

/**
 * Checks a new password against the policy: at least PASSWORD_MIN_LENGTH characters, and not the
 * account's email address. Returns what is wrong, or undefined when the password is acceptable.
 *
 * @example
 * const refused = checkPassword(password, { email });
 * if (refused) showError(refused.reason);
 */
export function checkPassword(password: string, context: { email?: string } = {}): PasswordCheck | undefined {
  // Code points, not UTF-16 units: an emoji is one character to the person typing it.
  if ([...password].length < PASSWORD_MIN_LENGTH) return { problem: 'too-short', reason: PASSWORD_REASONS['too-short'] };
  if (context.email && password.trim().toLowerCase() === context.email.trim().toLowerCase()) {
    return { problem: 'is-email', reason: PASSWORD_REASONS['is-email'] };
  }
  return undefined;
}
