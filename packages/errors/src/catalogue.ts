/**
 * The shape every error catalogue shares. A catalogue maps a stable NAME to the wire facts of one
 * error: HTTP status, errno (the number clients switch on), the reason phrase, a message a developer
 * can act on, and the extra fields that error carries.
 *
 * Two catalogues exist by design: the auth server's (`auth.ts`) and, with the OAuth server, its own
 * errno space. Numbers are pinned by tests and never reused within a catalogue; errno 999 is the one
 * generic number, shared by errors that have no specific errno (their HTTP status tells them apart).
 */

/** The types of every per-errno extra field that may appear in an error body. */
export interface ExtraFieldTypes {
  level: number;
  levelRequired: number;
  email: string;
  validation: ValidationDetail;
  param: string;
  serverTime: number;
  retryAfter: number;
  retryAfterLocalized: string;
  verificationMethod: string;
  verificationReason: string;
  deviceId: string;
  region: string;
  reason: string;
  reasonCode: number | string;
  bouncedAt: number;
  clientId: string;
  authAt: number;
  redirectUri: string;
  invalidScopes: string[];
  foundValue: string;
  service: string;
  operation: string;
  op: string;
  data: unknown;
  tries: number;
  ttl: number;
  detail: string;
  requestId: string;
  /** RFC 8707: the resource indicator a token request named. */
  resource: string;
}

export type ExtraField = keyof ExtraFieldTypes;

/** What a schema violation (errno 107) reports: where, which fields, and which rule failed. */
export interface ValidationDetail {
  source: 'payload' | 'query' | 'params' | 'headers';
  keys: string[];
  /** The rule that failed, e.g. `pattern`, `maxLength`, `required`. */
  rule?: string;
  /** A sentence naming the field and the rule, e.g. `authPW must match pattern ^[0-9a-f]{64}$`. */
  message?: string;
}

export interface ErrorDefinition {
  errno: number;
  status: number;
  /** The message clients see; specific enough to act on. */
  message: string;
  /** The HTTP reason phrase; defaults to the standard phrase of `status`. */
  error?: string;
  /** Other statuses this error may be sent with, chosen where it is thrown (e.g. 151: 422 or 500). */
  otherStatuses?: readonly number[];
  /** Extra fields this error carries in its body. */
  extras?: readonly ExtraField[];
  /** One sentence for the error reference page: when it happens and what to do. */
  description: string;
}

export type Catalogue = Readonly<Record<string, ErrorDefinition>>;

/** The errno shared by errors without a specific number (unknown endpoint, unexpected failure). */
export const GENERIC_ERRNO = 999;

const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  413: 'Request Entity Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? 'Error';
}

/** Checks a catalogue's invariants; used by its tests and at module load of the servers. */
export function catalogueProblems(catalogue: Catalogue): string[] {
  const problems: string[] = [];
  const byErrno = new Map<number, string>();
  for (const [name, def] of Object.entries(catalogue)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) problems.push(`${name}: names are UPPER_SNAKE_CASE`);
    if (!Number.isInteger(def.errno) || def.errno <= 0) problems.push(`${name}: errno must be a positive integer`);
    for (const status of [def.status, ...(def.otherStatuses ?? [])]) {
      if (!REASON_PHRASES[status]) problems.push(`${name}: status ${status} has no reason phrase`);
    }
    if (!def.message.trim()) problems.push(`${name}: empty message`);
    if (def.errno !== GENERIC_ERRNO) {
      const other = byErrno.get(def.errno);
      if (other) problems.push(`${name}: errno ${def.errno} already used by ${other}`);
      byErrno.set(def.errno, name);
    }
  }
  return problems;
}
