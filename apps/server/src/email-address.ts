import { domainToASCII } from 'node:url';

// Email addresses, one grammar everywhere (issue 9, hole 2). What a client sends is checked at the
// schema against this grammar, and the mailer is handed the address as a structured recipient,
// never a string to parse, so no input can name a second mailbox.
//
// The grammar is the dot-atom subset of RFC 5322 with UTF-8 (RFC 6531): no quoted local parts, no
// comments, groups, lists or angle brackets, no IP-literal domains. The domain has at least two
// labels of letters, digits and hyphens (or Unicode, for internationalised names); it must convert
// to ASCII under IDNA (UTS #46, node:url's domainToASCII), and its top-level label is not a number.
//
// Issue 22: the OpenAPI document states every rule the server applies. EMAIL_PATTERN carries all a
// regular expression can (characters, lengths, labels, the numeric top-level label); EMAIL_RULES
// describes the two it cannot (the IDNA conversion, the length once lower-cased), and
// emailAddressProblem names the rule an address breaks, for the 400's message. Lengths count
// characters (code points), as JSON Schema's maxLength and the database's varchar(255) do.

/** Control, invisible and direction-changing characters: never part of an address ("display-safe"). */
export const UNSAFE_CHARS = '\\u0000-\\u0020\\u007f-\\u00a0\\u00ad\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff';
/** Non-ASCII characters an address may hold (every code point from U+00A1, less surrogates; UNSAFE_CHARS are refused apart). */
const UNICODE = '\\u00a1-\\ud7ff\\ue000-\\u{10ffff}';
const ATEXT = `A-Za-z0-9!#$%&'*+/=?^_\`{|}~\\-${UNICODE}`;
const LABEL_CHAR = `A-Za-z0-9${UNICODE}`;
const LABEL = `[${LABEL_CHAR}](?:[${LABEL_CHAR}-]{0,61}[${LABEL_CHAR}])?`;
/** What WHATWG URL (and so IDNA conversion here) reads as a number: a domain ending in one is an IPv4 address. */
const NUMBER = '(?:[0-9]+|0[xX][0-9a-fA-F]*)';

export const MAX_LENGTH = 255;
export const MAX_LOCAL_LENGTH = 64;
export const MAX_DOMAIN_LENGTH = 253;

/**
 * The grammar as a JSON Schema pattern (ECMA-262 with the `u` flag): what the OpenAPI document
 * shows. No unsafe character anywhere; 1–64 characters before the one @ and 1–253 after it; the
 * local part is runs of atext joined by single dots; the domain is two or more labels of 1–63
 * letters, digits or hyphens (not at either end), the last of which is not a number.
 */
export const EMAIL_PATTERN = `^(?!.*[${UNSAFE_CHARS}])(?=[^@]{1,${MAX_LOCAL_LENGTH}}@[^@]{1,${MAX_DOMAIN_LENGTH}}$)`
  + `[${ATEXT}]+(?:\\.[${ATEXT}]+)*@(?:${LABEL}\\.)+(?!${NUMBER}$)${LABEL}$`;
const EMAIL = new RegExp(EMAIL_PATTERN, 'u');

/** The rules the pattern cannot hold, as the schema's description states them. */
export const EMAIL_RULES = [
  `An email address: at most ${MAX_LENGTH} characters, also once lower-cased (İ, U+0130, lower-cases to two);`,
  `a dot-atom local part of at most ${MAX_LOCAL_LENGTH} characters (letters, digits, Unicode and !#$%&'*+/=?^_\`{|}~- in runs joined by single dots; no quotes, comments, lists or angle brackets);`,
  `an @; and a domain of at most ${MAX_DOMAIN_LENGTH} characters with two or more dot-separated labels of 1–63 letters, digits, hyphens or Unicode, none starting or ending with a hyphen, the last not a number (all digits, or 0x and hex digits);`,
  'no control, space, invisible or direction-changing characters.',
  'Beyond the pattern: the domain must convert to ASCII under IDNA (UTS #46, as WHATWG URL does; an `xn--` label must be valid Punycode),',
  `and its ASCII form must meet the same domain rules (at most ${MAX_DOMAIN_LENGTH} characters, labels of at most 63, no hyphen at either end, the last not a number).`,
].join(' ');

const LONE_SURROGATE = /\p{Surrogate}/u;
const UNSAFE = new RegExp(`[${UNSAFE_CHARS}]`, 'u');
const LOCAL_PART = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`, 'u');
const LABEL_CHARS = new RegExp(`^[${LABEL_CHAR}-]+$`, 'u');
const IS_NUMBER = new RegExp(`^${NUMBER}$`);

const length = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** The first broken rule of a domain's labels, or null. `form`: how the message names the domain. */
function labelProblem(labels: string[], form: string): string | null {
  if (labels.length < 2) return `${form} must have two or more labels separated by dots (like example.com)`;
  if (labels.some((l) => l === '')) return `${form} has an empty label (a dot at either end, or two dots in a row)`;
  if (labels.some((l) => length(l) > 63)) return `a label of ${form} is longer than 63 characters`;
  if (labels.some((l) => !LABEL_CHARS.test(l))) return `${form} may hold only letters, digits, hyphens and dots (or Unicode letters)`;
  if (labels.some((l) => l.startsWith('-') || l.endsWith('-'))) return `a label of ${form} starts or ends with a hyphen`;
  if (IS_NUMBER.test(labels[labels.length - 1]!)) return `the last label of ${form} must not be a number (all digits, or 0x and hex digits)`;
  return null;
}

/**
 * The rule `email` breaks, as a phrase for an error message ("the local part (before the @) is
 * longer than 64 characters"), or null when the address is one the server accepts.
 */
export function emailAddressProblem(email: string): string | null {
  if (length(email) > MAX_LENGTH) return `it is longer than ${MAX_LENGTH} characters`;
  if (LONE_SURROGATE.test(email)) return 'it holds a lone surrogate (not text)';
  if (UNSAFE.test(email)) return 'it holds a space, a control character or an invisible or direction-changing character';
  const at = email.lastIndexOf('@');
  if (at < 0) return 'it has no @ between the local part and the domain';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.includes('@')) return 'it has more than one @ (quoted local parts are not accepted)';
  if (local === '') return 'the local part (before the @) is empty';
  if (length(local) > MAX_LOCAL_LENGTH) return `the local part (before the @) is longer than ${MAX_LOCAL_LENGTH} characters`;
  if (!LOCAL_PART.test(local)) {
    return 'the local part (before the @) must be letters, digits, Unicode or !#$%&\'*+/=?^_`{|}~- in runs joined by single dots (no quotes, commas, brackets, parentheses, colons or semicolons, and no dot at either end or two in a row)';
  }
  if (domain === '') return 'the domain (after the @) is empty';
  if (length(domain) > MAX_DOMAIN_LENGTH) return `the domain is longer than ${MAX_DOMAIN_LENGTH} characters`;
  const problem = labelProblem(domain.split('.'), 'the domain');
  if (problem) return problem;
  // Everything the pattern says has been checked above; this keeps the two from drifting apart.
  if (!EMAIL.test(email)) return 'it does not match the address grammar';
  const ascii = domainToASCII(domain);
  if (!ascii) return 'the domain does not convert to ASCII under IDNA (UTS #46): a character IDNA disallows, an xn-- label that is not valid Punycode, or a label IDNA maps to a number';
  if (ascii.length > MAX_DOMAIN_LENGTH) return `the domain's ASCII (IDNA) form is longer than ${MAX_DOMAIN_LENGTH} characters`;
  const asciiProblem = labelProblem(ascii.split('.'), 'the domain\'s ASCII (IDNA) form');
  if (asciiProblem) return asciiProblem;
  if (length(normalizeEmail(email)) > MAX_LENGTH) return `it is longer than ${MAX_LENGTH} characters once lower-cased (İ lower-cases to two characters)`;
  return null;
}

/** True when the server accepts the address (the schema's `email-address` format). */
export function isValidEmailAddress(email: string): boolean {
  return emailAddressProblem(email) === null;
}

/**
 * Addresses compare case-insensitively; the stored spelling is kept for display and the v1 salt.
 * Every table keyed by an address (emails, email_bounces) stores this form beside the original.
 */
export function normalizeEmail(email: string): string {
  return email.toLowerCase();
}
