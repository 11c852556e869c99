import type { FastifyInstance } from 'fastify';
import { appError } from '@tessera/errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: Hawk's payload hash covers these bytes. */
    rawBody?: string;
  }
}

/**
 * JSON bodies are parsed here, once, keeping the raw text for Hawk payload verification.
 * Malformed JSON is 400/106; a body over the limit is 413/113 (raised by Fastify before parsing).
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/json(;.*)?$/i, { parseAs: 'string' }, (request, raw, done) => {
    const text = raw as string;
    request.rawBody = text;
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(appError('INVALID_JSON'), undefined);
    }
  });
  // A POST without a body is an empty object: routes whose fields are all optional accept it, and
  // routes with required fields answer 108 naming the first missing one.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
    done();
  });
}
