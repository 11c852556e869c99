// Rate-limit rules ("customs"), one per line in the protocol's grammar (protocol.md §7.1):
//
//   action : property : maxAttempts : window : duration : policy
//
// `property` says what is counted: the client's address (ip), the account's address (email) or id
// (uid), or a pair (ip_email, ip_uid). Past `maxAttempts` within `window` (a fixed window from the
// first attempt), `policy` decides: `block` refuses that action for `duration`, `ban` refuses every
// action for that property value for `duration`, `report` only logs. `#` starts a comment.

export const PROPERTIES = ['ip', 'email', 'uid', 'ip_email', 'ip_uid'] as const;
export type Property = (typeof PROPERTIES)[number];
export const POLICIES = ['block', 'ban', 'report'] as const;
export type Policy = (typeof POLICIES)[number];

export interface Rule {
  action: string;
  property: Property;
  max: number;
  windowMs: number;
  durationMs: number;
  policy: Policy;
}

/**
 * The rules in force unless configuration replaces them: the protocol's rule set (§7.2). Actions
 * ending in `Failed` count failures (a wrong password, code or unblock code) and are counted only
 * when the request fails that way; the others count every attempt. `default` applies, counted per
 * endpoint, to every API route.
 */
export const DEFAULT_RULES = `
# Every API route, per client address and endpoint: logged past the limit, never refused.
default                          : ip       : 900 : 15 minutes : 15 minutes : report

# Failures: a client address that keeps failing is banned from every action.
passwordCheckFailed              : ip       : 50  : 24 hours   : 4 hours    : ban
unblockCodeFailed                : ip       : 50  : 24 hours   : 15 minutes : ban
accountDestroyFailed             : ip       : 50  : 24 hours   : 15 minutes : ban
verifySessionCodeFailed          : ip       : 50  : 24 hours   : 15 minutes : ban
passwordChangeStartFailed        : ip       : 50  : 24 hours   : 15 minutes : ban
passwordForgotVerifyCodeFailed   : ip       : 50  : 24 hours   : 15 minutes : ban
mfaOtpCodeVerifyFailed           : ip       : 50  : 24 hours   : 15 minutes : ban
recoveryKeyCheckFailed           : ip       : 50  : 24 hours   : 15 minutes : ban
recoveryEmailSecondaryVerifyCodeFailed : ip : 50  : 24 hours   : 15 minutes : ban
verifyRecoveryCodeFailed         : ip       : 50  : 24 hours   : 15 minutes : ban

# Account creation and existence checks.
accountCreate                    : ip       : 100 : 24 hours   : 24 hours   : block
accountStatusCheck               : ip       : 100 : 15 minutes : 15 minutes : block
getCredentialsStatus             : ip       : 100 : 15 minutes : 15 minutes : block
recoveryKeyExists                : ip       : 100 : 15 minutes : 15 minutes : block

# Sign-in.
accountLogin                     : ip_email : 5   : 15 minutes : 15 minutes : block
accountLogin                     : ip       : 100 : 24 hours   : 15 minutes : ban
accountLogin                     : email    : 50  : 24 hours   : 24 hours   : block
authenticatedAccountLogin        : ip_uid   : 5   : 15 minutes : 15 minutes : block
authenticatedAccountLogin        : ip       : 100 : 24 hours   : 15 minutes : ban
authenticatedAccountLogin        : email    : 50  : 24 hours   : 24 hours   : block

# Sign-in with Google and Apple: each attempt costs a signature check and, for an unknown key, a
# fetch of the provider's keys. Apple's notifications come from Apple's servers.
linkedAccountLogin               : ip       : 100 : 15 minutes : 15 minutes : block
linkedAccountLogin               : ip       : 500 : 24 hours   : 15 minutes : ban
linkedAccountNotification        : ip       : 1000 : 15 minutes : 15 minutes : block

# Support tickets: each one reaches a person at the helpdesk.
supportTicket                    : ip       : 10  : 60 minutes : 60 minutes : block
supportTicket                    : ip       : 100 : 24 hours   : 15 minutes : ban
# OAuth clients, public details (sign-in pages fetch them, ids are 64-bit random and not guessable).
oauthClientInfo                  : ip       : 600 : 15 minutes : 15 minutes : block
# Codes per client address, token requests per client address (relying parties' servers refresh often).
oauthAuthorization               : ip       : 300 : 15 minutes : 15 minutes : block
oauthToken                       : ip       : 3000 : 15 minutes : 15 minutes : block
# Introspection, verification and revocation: resource servers call these for every request they serve.
oauthIntrospect                  : ip       : 20000 : 15 minutes : 15 minutes : block

# Unblock codes.
sendUnblockCode                  : ip_email : 5   : 15 minutes : 15 minutes : block
sendUnblockCode                  : ip       : 100 : 24 hours   : 15 minutes : ban
sendUnblockCode                  : email    : 10  : 24 hours   : 24 hours   : block
rejectUnblockCode                : ip       : 100 : 24 hours   : 15 minutes : ban

# Emailed codes: sends per address and per client address, checks per account.
sendVerifyCode                   : ip_uid   : 5   : 15 minutes : 15 minutes : block
sendVerifyCode                   : ip       : 100 : 24 hours   : 15 minutes : ban
sendVerifyCode                   : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailResendCode          : ip_uid   : 5   : 15 minutes : 15 minutes : block
recoveryEmailResendCode          : ip       : 100 : 24 hours   : 15 minutes : ban
recoveryEmailResendCode          : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailVerifyCode          : ip_uid   : 10  : 10 minutes : 30 minutes : block
recoveryEmailVerifyCode          : ip       : 100 : 24 hours   : 15 minutes : ban
verifySessionCode                : ip_uid   : 10  : 15 minutes : 15 minutes : block
verifySessionCode                : ip       : 100 : 24 hours   : 15 minutes : ban

# Secondary addresses: adding one and resending its code mail an address the account has not
# proven (per account and per client address). Checking its code guesses at a 6-digit code.
createEmail                      : ip_uid   : 5   : 15 minutes : 15 minutes : block
createEmail                      : ip       : 100 : 24 hours   : 15 minutes : ban
createEmail                      : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailSecondaryResendCode : ip_uid   : 5   : 15 minutes : 15 minutes : block
recoveryEmailSecondaryResendCode : ip       : 100 : 24 hours   : 15 minutes : ban
recoveryEmailSecondaryResendCode : uid      : 20  : 24 hours   : 24 hours   : block
recoveryEmailSecondaryVerifyCode : ip_uid   : 10  : 10 minutes : 30 minutes : block
recoveryEmailSecondaryVerifyCode : ip       : 100 : 24 hours   : 15 minutes : ban

# Passwords.
passwordChange                   : ip_email : 5   : 15 minutes : 15 minutes : block
passwordChange                   : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendCode           : ip_email : 5   : 15 minutes : 15 minutes : block
passwordForgotSendCode           : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendCode           : email    : 20  : 24 hours   : 24 hours   : block
passwordForgotResendCode         : ip_email : 5   : 15 minutes : 15 minutes : block
passwordForgotResendCode         : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotResendCode         : email    : 20  : 24 hours   : 24 hours   : block
passwordForgotVerifyCode         : ip_email : 10  : 10 minutes : 30 minutes : block
passwordForgotVerifyCode         : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendOtp            : ip_email : 5   : 10 minutes : 15 minutes : block
passwordForgotSendOtp            : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotSendOtp            : email    : 20  : 24 hours   : 24 hours   : block
passwordForgotVerifyOtp          : ip_email : 5   : 10 minutes : 15 minutes : block
passwordForgotVerifyOtp          : ip       : 100 : 24 hours   : 15 minutes : ban
passwordForgotVerifyOtpPerDay    : ip_email : 10  : 24 hours   : 24 hours   : block
passwordForgotVerifyOtpPerDay    : ip       : 100 : 24 hours   : 15 minutes : ban

# MFA step-up codes (protocol.md §4.10): sends per action, checks per account. Wrong codes are
# also limited per code, per session and per account (domains/mfa, MFA_OTP_*).
mfaOtpCodeRequestFor2fa          : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestFor2fa          : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestFor2fa          : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForEmail        : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForEmail        : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForEmail        : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForRecoveryKey  : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForRecoveryKey  : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForRecoveryKey  : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForPassword     : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForPassword     : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForPassword     : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeRequestForPasskey      : ip_uid   : 5   : 15 minutes : 15 minutes : block
mfaOtpCodeRequestForPasskey      : ip       : 100 : 24 hours   : 15 minutes : ban
mfaOtpCodeRequestForPasskey      : uid      : 20  : 24 hours   : 24 hours   : block
mfaOtpCodeVerify                 : ip_uid   : 10  : 10 minutes : 30 minutes : block
mfaOtpCodeVerify                 : ip       : 100 : 24 hours   : 15 minutes : ban
# Recovery keys: presenting a fingerprint (GET /recoveryKey/{id}, /recoveryKey/verify) and storing one (it emails).
recoveryKeyCheck                 : ip_uid   : 10  : 15 minutes : 15 minutes : block
recoveryKeyCheck                 : ip       : 100 : 24 hours   : 15 minutes : ban
recoveryKeyCreate                : ip_uid   : 10  : 15 minutes : 15 minutes : block
recoveryKeyCreate                : ip       : 100 : 24 hours   : 15 minutes : ban

# Two-step authentication: codes from the app and backup codes (every attempt, and wrong ones also
# count against the account's budget of wrong codes), and new secrets (each renders a QR code).
verifyTotpCode                   : ip_uid   : 10  : 15 minutes : 15 minutes : block
verifyTotpCode                   : ip       : 100 : 24 hours   : 15 minutes : ban
verifyRecoveryCode               : ip_uid   : 10  : 15 minutes : 15 minutes : block
verifyRecoveryCode               : ip       : 100 : 24 hours   : 15 minutes : ban
totpCreate                       : ip_uid   : 10  : 15 minutes : 15 minutes : block

# Recovery phone: SMS sent (each costs money and reaches a person's phone) and codes checked (wrong
# ones also count against the account's budget, and a resend never resets them).
recoveryPhoneSendCode            : ip_uid   : 6   : 1 hour     : 1 hour     : block
recoveryPhoneSendCode            : uid      : 12  : 24 hours   : 24 hours   : block
recoveryPhoneSendCode            : ip       : 50  : 24 hours   : 15 minutes : ban
recoveryPhoneCheck               : ip_uid   : 10  : 15 minutes : 15 minutes : block
recoveryPhoneCheck               : ip       : 100 : 24 hours   : 15 minutes : ban

# Device commands: each is stored for its target and pushed to it (a sign-in confirmed at the
# account's AAL sends them; DEVICE_COMMANDS_PENDING_MAX also caps what waits for one device).
invokeDeviceCommand              : ip_uid   : 300 : 15 minutes : 15 minutes : block
invokeDeviceCommand              : uid      : 1000 : 24 hours  : 1 hour     : block

# Account deletion.
accountDestroy                   : ip_uid   : 5   : 15 minutes : 15 minutes : block
accountDestroy                   : ip       : 100 : 24 hours   : 15 minutes : ban
`;

const UNITS: Record<string, number> = {
  second: 1000, seconds: 1000, s: 1000,
  minute: 60_000, minutes: 60_000, min: 60_000, m: 60_000,
  hour: 3_600_000, hours: 3_600_000, h: 3_600_000,
  day: 86_400_000, days: 86_400_000, d: 86_400_000,
};

/** `15 minutes`, `24 hours`, `30 seconds`, `1 day` (or `15m`, `4h`) in milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*([a-z]+)$/i.exec(text.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || !unit || Number(m[1]) <= 0) throw new Error(`"${text.trim()}" is not a duration (like "15 minutes", "24 hours" or "30 seconds")`);
  return Number(m[1]) * unit;
}

/**
 * Parses rules text: one rule per line, or `;` between rules; `#` starts a comment to the end of
 * its line (a `;` in a comment is comment). Errors name the line, the rule and what is wrong.
 */
export function parseRules(text: string): Rule[] {
  const pieces = text.split('\n').flatMap((raw, n) => {
    const parts = raw.replace(/#.*/, '').split(';');
    return parts.map((part, k) => ({ line: part.trim(), at: parts.length > 1 ? `line ${n + 1}, rule ${k + 1}` : `line ${n + 1}` }));
  });
  const rules: Rule[] = [];
  pieces.forEach(({ line, at }) => {
    if (!line) return;
    const fields = line.split(':').map((f) => f.trim());
    const where = `rate-limit rule at ${at} ("${line}")`;
    if (fields.length !== 5 && fields.length !== 6) {
      throw new Error(`${where}: expected "action : property : maxAttempts : window : duration : policy"`);
    }
    const [action, property, max, window, duration, policy = 'block'] = fields as [string, string, string, string, string, string?];
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(action)) throw new Error(`${where}: the action must be a name like accountLogin`);
    if (!(PROPERTIES as readonly string[]).includes(property)) throw new Error(`${where}: the property must be one of ${PROPERTIES.join(', ')}`);
    if (!/^\d+$/.test(max) || Number(max) < 1) throw new Error(`${where}: maxAttempts must be a whole number of at least 1`);
    if (!(POLICIES as readonly string[]).includes(policy)) throw new Error(`${where}: the policy must be one of ${POLICIES.join(', ')}`);
    try {
      rules.push({
        action, property: property as Property, max: Number(max),
        windowMs: parseDuration(window), durationMs: parseDuration(duration), policy: policy as Policy,
      });
    } catch (err) {
      throw new Error(`${where}: ${(err as Error).message}`);
    }
  });
  return rules;
}

/**
 * The rules in force: the defaults (or a replacement file's), then each override rule replacing the
 * rule of the same action and property or, when there is none, adding to them.
 */
export function mergeRules(base: Rule[], overrides: Rule[]): Rule[] {
  const out = [...base];
  for (const rule of overrides) {
    const i = out.findIndex((r) => r.action === rule.action && r.property === rule.property);
    if (i >= 0) out[i] = rule;
    else out.push(rule);
  }
  return out;
}

/** `15 minutes` style text for a duration in ms (docs and the rules table). */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]] as const) {
    if (ms % size === 0) {
      const n = ms / size;
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${ms} ms`;
}
