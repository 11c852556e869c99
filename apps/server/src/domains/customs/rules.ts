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
 * Customs' own rules: `default` and the bans of client addresses that keep failing, whatever the
 * domain. Each domain's manifest declares the rules of its own actions (`rateLimits`), and the
 * composition of them all is the protocol's rule set (§7.2), in force unless configuration replaces it. Actions
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
