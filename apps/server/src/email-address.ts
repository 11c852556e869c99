import { domainToASCII } from 'node:url';

// Email addresses, one grammar everywhere (issue 9, hole 2). What a client sends is checked at the
// schema against this grammar, and the mailer is handed the address as a structured recipient,
// never a string to parse, so no input can name a second mailbox.
//
// The grammar is the dot-atom subset of RFC 5322 with UTF-8 (RFC 6531): no quoted local parts, no
// comments, groups, lists or angle brackets, no IP-literal domains. The domain has at least two
// labels of letters, digits and hyphens (or Unicode, for internationalised names); it must convert
// to ASCII under IDNA (UTS #46, node:url's domainToASCII), and its top-level label is not numeric.

/** Control, invisible and direction-changing characters: never part of an address ("display-safe"). */
export const UNSAFE_CHARS = '\\u0000-\\u0020\\u007f-\\u00a0\\u00ad\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff';
const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~\\-\\u00a1-\\u{10ffff}";
const LABEL_CHAR = 'A-Za-z0-9\\u00a1-\\u{10ffff}';
const LABEL = `[${LABEL_CHAR}](?:[${LABEL_CHAR}-]{0,61}[${LABEL_CHAR}])?`;

/** The grammar as a JSON Schema pattern (ECMA-262 with the `u` flag): what the OpenAPI document shows. */
export const EMAIL_PATTERN = `^(?!.*[${UNSAFE_CHARS}])[${ATEXT}]+(?:\\.[${ATEXT}]+)*@${LABEL}(?:\\.${LABEL})+$`;
const EMAIL = new RegExp(EMAIL_PATTERN, 'u');

const LONE_SURROGATE = /\p{Surrogate}/u;

/** The grammar's other rules, which a pattern cannot say: part lengths and IDNA. */
export function isValidEmailAddress(email: string): boolean {
  if (email.length > 255 || LONE_SURROGATE.test(email) || !EMAIL.test(email)) return false;
  const at = email.lastIndexOf('@');
  if (at > 64) return false;
  const ascii = domainToASCII(email.slice(at + 1));
  if (!ascii || ascii.length > 253) return false;
  const labels = ascii.split('.');
  if (labels.some((l) => l.length === 0 || l.length > 63 || l.startsWith('-') || l.endsWith('-'))) return false;
  return !/^[0-9]+$/.test(labels[labels.length - 1]!);
}

/**
 * Addresses compare case-insensitively; the stored spelling is kept for display and the v1 salt.
 * Every table keyed by an address (emails, email_bounces) stores this form beside the original.
 */
export function normalizeEmail(email: string): string {
  return email.toLowerCase();
}
