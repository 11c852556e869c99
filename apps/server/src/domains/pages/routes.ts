import type { FastifyPluginAsync } from 'fastify';
import { isAppError } from '@tessera/errors';
import { contextOf } from '../../http/context.js';
import type { Confirmations } from '../emails/index.js';
import { allowedRedirect } from '../../http/redirect.js';
import { escapeHtml, sendPage } from './html.js';
import { FINISH_SETUP_SCRIPT, RESET_SCRIPT } from './scripts.js';
import { newPasswordForm, resetViews, sections, signInHint, verifyViews } from './views.js';

// GET /verify_email, /complete_reset_password and /finish_setup: where emailed links land. Until the account
// web app exists these are plain working pages of the auth server.

export type PageDeps = {
  confirmations: Confirmations;
  /** Reads an emailed reset link's state (seconds left, or null when it no longer works). */
  resetLinks: { resetLinkStatus(token: string): Promise<{ ttl: number; email: string } | null> };
  /** Reads an emailed setup link's state: the form, already used, or not valid (any more). */
  setupLinks: { setupLinkStatus(token: string): Promise<'ready' | 'used' | 'invalid'> };
  allowedOrigins: string[];
  /** The API's origin, for the sign-in command the pages show. */
  publicUrl: string;
};

const HEX32 = /^[0-9a-fA-F]{32}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const SETUP_TOKEN = /^[\w-]+\.[\w-]+\.[\w-]+$/;

type Query = Record<string, string | undefined>;

function hidden(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

export const pageRoutes: FastifyPluginAsync<PageDeps> = async (app, { confirmations, resetLinks, setupLinks, allowedOrigins, publicUrl }) => {
  // The confirmation form posts url-encoded fields (the API itself only takes JSON).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, raw, done) => {
    done(null, Object.fromEntries(new URLSearchParams(raw as string)));
  });
  const invalidLink = { status: 400, title: 'Invalid link', body: verifyViews.invalid(publicUrl) };
  const usedLink = { status: 400, title: 'Link no longer works', body: verifyViews.gone(publicUrl) };

  // GET shows what the link would confirm and a button; only a person's click (a POST) confirms.
  // Link scanners fetch URLs, and some run their scripts: neither confirms anything here.
  app.get('/verify_email', { schema: { hide: true } }, async (req, reply) => {
    const q = req.query as Query;
    if (!q.uid || !q.code || !HEX32.test(q.uid) || !HEX32.test(q.code)) return sendPage(reply, invalidLink);
    const what = await confirmations.describeLinkCode(q.uid.toLowerCase(), q.code.toLowerCase());
    if (!what) return sendPage(reply, usedLink);
    const form = `<form method="post" action="/verify_email">${hidden('uid', q.uid)}${hidden('code', q.code)}${hidden('service', q.service)}${hidden('redirectTo', q.redirectTo)}`;
    const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
    return sendPage(reply, what.kind === 'signup'
      ? {
          title: 'Confirm your email',
          body: `<h1>Confirm your email</h1><p>Confirm <strong>${escapeHtml(what.email)}</strong> as the address of your new Tessera account.</p>${form}<button type="submit">Confirm email</button></form>`,
        }
      : {
          title: 'Confirm sign-in',
          body: `<h1>Confirm this sign-in?</h1><p>A sign-in to <strong>${escapeHtml(what.email)}</strong> is waiting for your confirmation:</p>
<dl><dt>Device</dt><dd>${escapeHtml(what.device)}</dd><dt>Time</dt><dd>${escapeHtml(when(what.at))} (UTC)</dd></dl>
<p>Confirm only if this was you. If it was not, do not confirm, and change your password.</p>${form}<button type="submit">Confirm sign-in</button></form>`,
        });
  });

  app.post('/verify_email', { schema: { hide: true } }, async (req, reply) => {
    const b = (req.body ?? {}) as Query;
    if (!b.uid || !b.code || !HEX32.test(b.uid) || !HEX32.test(b.code)) return sendPage(reply, invalidLink);
    try {
      const { signup } = await confirmations.verifyLinkCode(b.uid.toLowerCase(), b.code.toLowerCase(), contextOf(req), (err) =>
        req.log.warn({ reqId: req.id, reason: (err as Error).message }, 'sign-in notice not sent'));
      const next = allowedRedirect(b.redirectTo, allowedOrigins);
      if (next) return reply.code(303).header('location', next).send();
      return sendPage(reply, {
        title: signup ? 'Email confirmed' : 'Sign-in confirmed',
        body: signup
          ? `<h1>Your email is confirmed</h1><p class="ok">Your Tessera account is ready.</p>${signInHint(publicUrl, undefined)}`
          : '<h1>Sign-in confirmed</h1><p class="ok">Go back to where you signed in: it can go on now. You can close this page.</p>',
      });
    } catch (err) {
      // A wrong or spent code, or an account deleted since the email: the link is dead either way.
      if (!isAppError(err)) throw err;
      return sendPage(reply, usedLink);
    }
  });

  // Where the emailed link of a stub account's setup lands: the person chooses the first password.
  app.get('/finish_setup', { schema: { hide: true } }, async (req, reply) => {
    const q = req.query as Query;
    const valid = q.email && q.email.length <= 255 && q.token && q.token.length <= 2048 && SETUP_TOKEN.test(q.token);
    if (!valid) {
      return sendPage(reply, { status: 400, title: 'Invalid link', body: '<h1>This link is not valid</h1><p class="error">Part of the link is missing: some mail apps cut long links. Open the link from the email again; if it keeps failing, ask the service that made your account for a new email.</p>' });
    }
    const status = await setupLinks.setupLinkStatus(q.token!);
    if (status === 'used') {
      return sendPage(reply, { title: 'Account ready', body: `<h1>Your account already has a password</h1><p>This link was used to set it. Sign in with that password; if you forgot it, reset it where you sign in.</p>${signInHint(publicUrl, q.email)}` });
    }
    if (status === 'invalid') {
      return sendPage(reply, { status: 400, title: 'Link no longer works', body: '<h1>This link no longer works</h1><p class="error">Setup links work for 30 days, and only for the account they were sent for. Ask the service that made your account to send a new setup email.</p>' });
    }
    return sendPage(reply, {
      title: 'Finish setting up your account',
      body: sections({
        choose: `<h1>Choose a password</h1><p>A Tessera account was created for <strong>${escapeHtml(q.email!)}</strong>. Choose its password to finish setting it up.</p>${newPasswordForm('setup', { email: q.email!, token: q.token! }, 'Set password')}`,
        done: `<h1>Your account is ready</h1><p class="ok">The password of <strong>${escapeHtml(q.email!)}</strong> is set.</p>${signInHint(publicUrl, q.email)}`,
      }),
      script: FINISH_SETUP_SCRIPT,
    });
  });

  // The reset link is checked as the page opens (without spending a try): a used, replaced or
  // expired link shows why and a way to get a new one instead of a form that can only fail.
  app.get('/complete_reset_password', { schema: { hide: true } }, async (req, reply) => {
    const q = req.query as Query;
    const next = allowedRedirect(q.redirectTo, allowedOrigins);
    const valid = q.email && q.email.length <= 255 && q.code && /^(?:\d{8}|\d{16})$/.test(q.code) && q.token && HEX64.test(q.token);
    if (!valid) return sendPage(reply, { status: 400, title: 'Invalid link', body: resetViews.invalid(q.email, next), script: RESET_SCRIPT });
    const token = q.token!.toLowerCase();
    const status = await resetLinks.resetLinkStatus(token);
    if (!status) return sendPage(reply, { status: 400, title: 'Link no longer works', body: resetViews.gone(q.email, next), script: RESET_SCRIPT });
    return sendPage(reply, {
      title: 'Reset your password',
      // The account's address, not the link's: the new password is stretched with it.
      body: sections({
        choose: resetViews.choose(status.email, status.ttl) + newPasswordForm('reset', { email: status.email, code: q.code!, token }, 'Change password'),
        done: resetViews.done(status.email, next, publicUrl),
        gone: resetViews.gone(status.email, next),
      }),
      script: RESET_SCRIPT,
    });
  });
};
