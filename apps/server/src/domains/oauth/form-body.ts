import type { FastifyInstance } from 'fastify';
import { appError } from '@tessera/errors';

// OAuth clients post forms (RFC 6749 §4.1.3): the token, introspection and revocation routes take
// JSON or application/x-www-form-urlencoded bodies.

/** application/x-www-form-urlencoded, a parameter at most once (RFC 6749 §3.1, §3.2). `ttl` and `ppid_seed` are numbers. */
function parseForm(text: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    if (k in out) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [k], message: `${k} is sent more than once` } });
    out[k] = (k === 'ttl' || k === 'ppid_seed') && /^\d{1,6}$/.test(v) ? Number(v) : v;
  }
  return out;
}

/** OAuth clients post forms (RFC 6749 §4.1.3): the parser, for the scope holding the OAuth routes. */
export function installFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_req, body, done) => {
    try {
      done(null, parseForm(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
