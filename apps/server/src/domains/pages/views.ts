import { PASSWORD_MIN_LENGTH } from '@tessera/protocol';
import { escapeHtml } from './html.js';

// The pieces of the pages' HTML. Each dead end names a way forward; each success names the next step.
// Everything interpolated is escaped here.

const EMAIL = /^[^@\s]{1,64}@[^@\s]{1,255}$/;

/** Tessera's command-line client, from a clone of the repository (the API's origin unless the default). */
function cliHint(publicUrl: string, email: string | undefined): string {
  const url = publicUrl === 'http://localhost:9000' ? '' : ` --url ${publicUrl}`;
  const who = email && EMAIL.test(email) ? email : 'you@example.com';
  return `<p class="hint">From a clone of Tessera, its command-line client signs in with:<code class="command">${escapeHtml(`npm run tessera --${url} signin ${who}`)}</code></p>`;
}

/** How to sign in today: the app or site the person came from, or Tessera's command-line client. */
export function signInHint(publicUrl: string, email: string | undefined): string {
  return `<h2>Signing in</h2><p>Sign in with your password in the app or website where you use your Tessera account.</p>\n${cliHint(publicUrl, email)}`;
}

/** The form that emails a new reset link (POST /v1/password/forgot/send_code from the page's script). */
export function newLinkForm(email: string | undefined, next: string | null): string {
  const value = email && EMAIL.test(email) ? ` value="${escapeHtml(email)}"` : '';
  return `<h2>Get a new link</h2><form id="again" novalidate data-next="${escapeHtml(next ?? '')}">
<label for="again-email">Your account’s email address</label><input id="again-email" type="email" autocomplete="email" required${value}>
<button type="submit">Email me a new link</button><p id="again-msg" role="status" aria-live="polite"></p></form>`;
}

export const resetViews = {
  invalid: (email: string | undefined, next: string | null) => `<h1>This reset link is not valid</h1>
<p class="error">Part of the link is missing: some mail apps cut long links. Open the link from the email again, or get a new one here.</p>${newLinkForm(email, next)}`,
  gone: (email: string | undefined, next: string | null) => `<h1>This reset link no longer works</h1>
<p class="error">It was used already, it expired, or a newer reset email replaced it.</p>${newLinkForm(email, next)}`,
  choose: (email: string, ttl: number) => `<h1>Choose a new password</h1>
<p>For <strong>${escapeHtml(email)}</strong>. A reset replaces your encryption keys: data that only your old password protected cannot be read any more.</p>
<p class="hint">This link works for ${Math.max(1, Math.round(ttl / 60))} more minutes.</p>`,
  done: (email: string, next: string | null, publicUrl: string) => `<h1>Your password is changed</h1>
<p class="ok">Every device signed in to <strong>${escapeHtml(email)}</strong> was signed out, and a confirmation email is on its way.</p>
${next ? `<p><a class="button" id="continue" href="${escapeHtml(next)}" rel="noreferrer">Continue to ${escapeHtml(new URL(next).host)}</a></p>` : ''}${signInHint(publicUrl, email)}`,
};

/** The form of a new password (reset or first password); its script reads the data attributes. */
export function newPasswordForm(id: string, data: Record<string, string>, button: string): string {
  const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`).join('');
  return `<form id="${id}" novalidate${attrs}>
<label for="pw">New password</label><input id="pw" type="password" autocomplete="new-password" required aria-describedby="pw-rule">
<p id="pw-rule" class="hint">At least ${PASSWORD_MIN_LENGTH} characters, and not your email address.</p>
<label for="pw2">Repeat it</label><input id="pw2" type="password" autocomplete="new-password" required>
<button id="go" type="submit">${escapeHtml(button)}</button><p id="msg" role="status" aria-live="polite"></p></form>`;
}

/** The sections a page's script switches between (only the first is shown at first). */
export function sections(parts: Record<string, string>): string {
  return Object.entries(parts).map(([id, html], i) => `<section id="${id}"${i ? ' hidden' : ''}>${html}</section>`).join('\n');
}

export const verifyViews = {
  invalid: (publicUrl: string) => `<h1>This link is not valid</h1>
<p class="error">Part of the link is missing: some mail apps cut long links. Open the link from the email again, or copy the whole link into the address bar.</p>${newEmailHint(publicUrl)}`,
  gone: (publicUrl: string) => `<h1>This link no longer works</h1>
<p class="error">It was used already, or a newer email replaced it. If you confirmed already, there is nothing more to do.</p>${newEmailHint(publicUrl)}`,
};

function newEmailHint(publicUrl: string): string {
  return `<h2>Getting a new email</h2><p>Sign in again where you created your account or signed in: Tessera then sends a new confirmation email.</p>\n${cliHint(publicUrl, undefined)}`;
}

export const setupViews = {
  invalid: '<h1>This link is not valid</h1><p class="error">Part of the link is missing: some mail apps cut long links. Open the link from the email again; if it keeps failing, ask the service that made your account for a new email.</p>',
  used: (publicUrl: string, email: string | undefined) => `<h1>Your account already has a password</h1><p>This link was used to set it. Sign in with that password; if you forgot it, reset it where you sign in.</p>${signInHint(publicUrl, email)}`,
  gone: '<h1>This link no longer works</h1><p class="error">Setup links work for 30 days, and only for the account they were sent for. Ask the service that made your account to send a new setup email.</p>',
};
