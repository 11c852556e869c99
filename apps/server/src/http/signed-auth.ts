import type { FastifyRequest } from 'fastify';
import type { AppError } from '@tessera/errors';
import type { StrategyName, TokenStrategy } from './auth.js';

// Inbound webhooks (issue 23): a route whose strategy is `signed` is proven by a credential the
// request carries itself — a JWT its sender signed, in the body — not by the Authorization header.
// The domain that receives the webhook contributes the strategy, so the route declares its auth
// like every other one and the route table shows it.

/**
 * The first of the route's `signed` strategies whose credential the request carries proves it
 * (`find` answers the credentials, or throws the refusal the sender's protocol calls for); none
 * carried: `refuse`, unless the route's auth is optional.
 */
export function authenticateSigned(
  request: FastifyRequest, strategies: [StrategyName, TokenStrategy<unknown>][], now: number, optional: boolean, refuse: (detail: string) => AppError,
): void | Promise<void> {
  for (const [name, strategy] of strategies) {
    const credential = strategy.fromRequest!(request);
    if (credential === null) continue;
    const accept = (credentials: unknown): void => {
      if (!credentials) throw refuse('The signed credential was not accepted');
      request.auth = { strategy: name, credentials };
    };
    const found = strategy.find(credential, now);
    return found instanceof Promise ? found.then(accept) : accept(found);
  }
  if (!optional) throw refuse('The request carries no signed credential');
}

/** preHandler of a signed route: validation has passed, so the body's credential is there to prove. */
export function signedPreHandler(
  strategies: [StrategyName, TokenStrategy<unknown>][], optional: boolean, refuse: (detail: string) => AppError, now: () => number,
) {
  return (request: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void => {
    let result: void | Promise<void>;
    try {
      result = authenticateSigned(request, strategies, now(), optional, refuse);
    } catch (err) {
      return done(err as Error);
    }
    if (result instanceof Promise) result.then(() => done(), (err: Error) => done(err));
    else done();
  };
}
