import { isAppError } from '@tessera/errors';
import type { RequestContext } from '../../platform/request-context.js';
import type { Confirmations } from '../emails/index.js';
import { allowedRedirect } from '../../platform/redirect.js';
import { escapeHtml, type Page } from './html.js';
import { FINISH_SETUP_SCRIPT, RESET_SCRIPT } from './scripts.js';
import { newPasswordForm, resetViews, sections, setupViews, signInHint, verifyViews } from './views.js';

// What each page shows for the link it was opened with: the routes read the request and send what
// these return (a page, or where to go next).

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

export type Query = Record<string, string | undefined>;

const HEX32 = /^[0-9a-fA-F]{32}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const SETUP_TOKEN = /^[\w-]+\.[\w-]+\.[\w-]+$/;

function hidden(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

export function createPages({ confirmations, resetLinks, setupLinks, allowedOrigins, publicUrl }: PageDeps) {
  const invalidLink: Page = { status: 400, title: 'Invalid link', body: verifyViews.invalid(publicUrl) };
  const usedLink: Page = { status: 400, title: 'Link no longer works', body: verifyViews.gone(publicUrl) };

  return {
    /** GET /verify_email: what the link would confirm, and the button that confirms it. */
    async verifyForm(q: Query): Promise<Page> {
      if (!q.uid || !q.code || !HEX32.test(q.uid) || !HEX32.test(q.code)) return invalidLink;
      const what = await confirmations.describeLinkCode(q.uid.toLowerCase(), q.code.toLowerCase());
      if (!what) return usedLink;
      const form = `<form method="post" action="/verify_email">${hidden('uid', q.uid)}${hidden('code', q.code)}${hidden('service', q.service)}${hidden('redirectTo', q.redirectTo)}`;
      return what.kind === 'signup'
        ? {
            title: 'Confirm your email',
            body: `<h1>Confirm your email</h1><p>Confirm <strong>${escapeHtml(what.email)}</strong> as the address of your new Tessera account.</p>${form}<button type="submit">Confirm email</button></form>`,
          }
        : {
            title: 'Confirm sign-in',
            body: `<h1>Confirm this sign-in?</h1><p>A sign-in to <strong>${escapeHtml(what.email)}</strong> is waiting for your confirmation:</p>
<dl><dt>Device</dt><dd>${escapeHtml(what.device)}</dd><dt>Time</dt><dd>${escapeHtml(when(what.at))} (UTC)</dd></dl>
<p>Confirm only if this was you. If it was not, do not confirm, and change your password.</p>${form}<button type="submit">Confirm sign-in</button></form>`,
          };
    },

    /** POST /verify_email: confirms, then goes on to redirectTo (when allowed) or says it is done. */
    async confirm(b: Query, ctx: RequestContext, noticeFailed: (err: unknown) => void): Promise<Page | { redirect: string }> {
      if (!b.uid || !b.code || !HEX32.test(b.uid) || !HEX32.test(b.code)) return invalidLink;
      try {
        const { signup } = await confirmations.verifyLinkCode(b.uid.toLowerCase(), b.code.toLowerCase(), ctx, noticeFailed);
        const next = allowedRedirect(b.redirectTo, allowedOrigins);
        if (next) return { redirect: next };
        return {
          title: signup ? 'Email confirmed' : 'Sign-in confirmed',
          body: signup
            ? `<h1>Your email is confirmed</h1><p class="ok">Your Tessera account is ready.</p>${signInHint(publicUrl, undefined)}`
            : '<h1>Sign-in confirmed</h1><p class="ok">Go back to where you signed in: it can go on now. You can close this page.</p>',
        };
      } catch (err) {
        // A wrong or spent code, or an account deleted since the email: the link is dead either way.
        if (!isAppError(err)) throw err;
        return usedLink;
      }
    },

    /** GET /finish_setup: a stub account's first password, or why the link cannot set it. */
    async finishSetup(q: Query): Promise<Page> {
      const valid = q.email && q.email.length <= 255 && q.token && q.token.length <= 2048 && SETUP_TOKEN.test(q.token);
      if (!valid) return { status: 400, title: 'Invalid link', body: setupViews.invalid };
      const status = await setupLinks.setupLinkStatus(q.token!);
      if (status === 'used') return { title: 'Account ready', body: setupViews.used(publicUrl, q.email) };
      if (status === 'invalid') return { status: 400, title: 'Link no longer works', body: setupViews.gone };
      return {
        title: 'Finish setting up your account',
        body: sections({
          choose: `<h1>Choose a password</h1><p>A Tessera account was created for <strong>${escapeHtml(q.email!)}</strong>. Choose its password to finish setting it up.</p>${newPasswordForm('setup', { email: q.email!, token: q.token! }, 'Set password')}`,
          done: `<h1>Your account is ready</h1><p class="ok">The password of <strong>${escapeHtml(q.email!)}</strong> is set.</p>${signInHint(publicUrl, q.email)}`,
        }),
        script: FINISH_SETUP_SCRIPT,
      };
    },

    /**
     * GET /complete_reset_password. The link is checked as the page opens (without spending a try):
     * a used, replaced or expired link shows why and a way to get a new one instead of a form that
     * can only fail.
     */
    async reset(q: Query): Promise<Page> {
      const next = allowedRedirect(q.redirectTo, allowedOrigins);
      const valid = q.email && q.email.length <= 255 && q.code && /^(?:\d{8}|\d{16})$/.test(q.code) && q.token && HEX64.test(q.token);
      if (!valid) return { status: 400, title: 'Invalid link', body: resetViews.invalid(q.email, next), script: RESET_SCRIPT };
      const token = q.token!.toLowerCase();
      const status = await resetLinks.resetLinkStatus(token);
      if (!status) return { status: 400, title: 'Link no longer works', body: resetViews.gone(q.email, next), script: RESET_SCRIPT };
      return {
        title: 'Reset your password',
        // The account's address, not the link's: the new password is stretched with it.
        body: sections({
          choose: resetViews.choose(status.email, status.ttl) + newPasswordForm('reset', { email: status.email, code: q.code!, token }, 'Change password'),
          done: resetViews.done(status.email, next, publicUrl),
          gone: resetViews.gone(status.email, next),
        }),
        script: RESET_SCRIPT,
      };
    },
  };
}

export type Pages = ReturnType<typeof createPages>;
