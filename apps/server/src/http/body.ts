import type { FastifyInstance } from 'fastify';
import { appError } from '@tessera/errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: Hawk's payload hash covers these bytes. */
    rawBody?: string;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /\p{Surrogate}/u;

/** JSON.parse's reviver: a string holding a lone surrogate (`"\ud800"`) is not text. */
function wellFormed(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw new SyntaxError('lone surrogate');
  return value;
}

/**
 * JSON bodies are parsed here, once, keeping the raw text for Hawk payload verification.
 * Malformed JSON is 400/106, and so are bytes that are not UTF-8 and strings with lone surrogates:
 * they are refused rather than stored as U+FFFD. A body over the limit is 413/113 (raised by
 * Fastify before parsing).
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/json(;.*)?$/i, { parseAs: 'buffer' }, (request, raw, done) => {
    let text: string;
    try {
      text = utf8.decode(raw as Buffer);
    } catch {
      return done(appError('INVALID_JSON', {}, 'Invalid JSON in request body: it is not UTF-8'), undefined);
    }
    request.rawBody = text;
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text, wellFormed));
    } catch (err) {
      const lone = (err as Error).message === 'lone surrogate';
      done(appError('INVALID_JSON', {}, lone ? 'Invalid JSON in request body: a string holds a lone surrogate (\\uD800–\\uDFFF without its pair)' : undefined), undefined);
    }
  });
  // A POST without a body is an empty object: routes whose fields are all optional accept it, and
  // routes with required fields answer 108 naming the first missing one.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
    done();
  });
}
