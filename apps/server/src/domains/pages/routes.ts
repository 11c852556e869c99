import type { FastifyPluginAsync } from 'fastify';
import { contextOf } from '../../http/context.js';
import { sendPage } from './html.js';
import { moduleRoutes } from './modules.js';
import { createPages, type PageDeps, type Query } from './service.js';

// GET /verify_email, /complete_reset_password and /finish_setup: where emailed links land. Until the account
// web app exists these are plain working pages of the auth server.

export type { PageDeps };

export const pageRoutes: FastifyPluginAsync<PageDeps> = async (app, deps) => {
  const pages = createPages(deps);
  // The confirmation form posts url-encoded fields (the API itself only takes JSON).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, raw, done) => {
    done(null, Object.fromEntries(new URLSearchParams(raw as string)));
  });
  await app.register(moduleRoutes);

  // GET shows what the link would confirm and a button; only a person's click (a POST) confirms.
  // Link scanners fetch URLs, and some run their scripts: neither confirms anything here.
  app.get('/verify_email', { schema: { hide: true } }, async (req, reply) => sendPage(reply, await pages.verifyForm(req.query as Query)));

  app.post('/verify_email', { schema: { hide: true } }, async (req, reply) => {
    const page = await pages.confirm((req.body ?? {}) as Query, contextOf(req), (err) =>
      req.log.warn({ reqId: req.id, reason: (err as Error).message }, 'sign-in notice not sent'));
    return 'redirect' in page ? reply.code(303).header('location', page.redirect).send() : sendPage(reply, page);
  });

  // Where the emailed link of a stub account's setup lands: the person chooses the first password.
  app.get('/finish_setup', { schema: { hide: true } }, async (req, reply) => sendPage(reply, await pages.finishSetup(req.query as Query)));

  app.get('/complete_reset_password', { schema: { hide: true } }, async (req, reply) => sendPage(reply, await pages.reset(req.query as Query)));
};
