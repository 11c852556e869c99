import type { FastifyInstance } from 'fastify';

// A route's declared errors are a promise to clients (the OpenAPI document, the SDK's error unions,
// the portal list them). In tests this check keeps the promise: an error a route did not declare
// is answered as a 500 that names the route and the errno instead, and is recorded, so the test
// that caused it fails, and so does the suite when it closes its server.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by the check: `status:errno` of every error this route's `responses(…)` declares. */
    declaredErrors?: ReadonlySet<string>;
  }
}

export interface UndeclaredError {
  route: string;
  status: number;
  errno: number;
  message: string;
}

export function installDeclaredErrorCheck(app: FastifyInstance, violations: UndeclaredError[]): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide || !route.schema?.response) return;
    // By status and errno: errno 999 alone would not tell a 415 from a 500.
    const declared = new Set<string>();
    for (const [status, schema] of Object.entries(route.schema.response as Record<string, { 'x-errors'?: { errno: number }[] }>)) {
      for (const e of schema['x-errors'] ?? []) declared.add(`${status}:${e.errno}`);
    }
    route.config = { ...route.config, declaredErrors: declared };
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const declared = request.routeOptions.config?.declaredErrors;
    if (!declared || reply.statusCode < 400 || typeof payload !== 'string') return done(null, payload);
    let errno: number | undefined;
    let message = '';
    try {
      ({ errno, message } = JSON.parse(payload) as { errno?: number; message: string });
    } catch {
      return done(null, payload);
    }
    if (errno === undefined || declared.has(`${reply.statusCode}:${errno}`)) return done(null, payload);
    const route = `${request.method} ${request.routeOptions.url}`;
    const status = reply.statusCode;
    violations.push({ route, status, errno, message });
    reply.code(500);
    done(null, JSON.stringify({
      code: 500, errno: 999, error: 'Internal Server Error',
      message: `${route} answered ${status} errno ${errno} (${message}), which its schema does not declare: add it to the route's responses(…)`,
    }));
  });
}
