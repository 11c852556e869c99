import type { FastifyPluginAsync } from 'fastify';
import { isAppError } from '@tessera/errors';
import { PASSWORD_MIN_LENGTH, PASSWORD_POLICY_SCRIPT } from '@tessera/protocol';
import { contextOf } from '../../http/context.js';
import type { Confirmations } from '../emails/index.js';
import { escapeHtml, safeRedirect, sendPage } from './html.js';

// GET /verify_email, /complete_reset_password and /finish_setup: where emailed links land. Until the account
// web app exists these are plain working pages of the auth server.

export interface PageDeps {
  confirmations: Confirmations;
  allowedOrigins: string[];
}

const HEX32 = /^[0-9a-fA-F]{32}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const SETUP_TOKEN = /^[\w-]+\.[\w-]+\.[\w-]+$/;

type Query = Record<string, string | undefined>;

function hidden(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

export const pageRoutes: FastifyPluginAsync<PageDeps> = async (app, { confirmations, allowedOrigins }) => {
  // The confirmation form posts url-encoded fields (the API itself only takes JSON).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, raw, done) => {
    done(null, Object.fromEntries(new URLSearchParams(raw as string)));
  });

  // GET shows what the link would confirm and a button; only a person's click (a POST) confirms.
  // Link scanners fetch URLs, and some run their scripts: neither confirms anything here.
  app.get('/verify_email', { schema: { hide: true } }, async (req, reply) => {
    const q = req.query as Query;
    if (!q.uid || !q.code || !HEX32.test(q.uid) || !HEX32.test(q.code)) {
      return sendPage(reply, { status: 400, title: 'Invalid link', body: '<h1>This link is not valid</h1><p class="error">It may be incomplete. Open the link from the email again, or request a new email.</p>' });
    }
    const what = await confirmations.describeLinkCode(q.uid.toLowerCase(), q.code.toLowerCase());
    if (!what) {
      return sendPage(reply, { status: 400, title: 'Link expired', body: '<h1>This link no longer works</h1><p class="error">It may have been used already, or a newer email replaced it. Request a new email.</p>' });
    }
    const form = `<form method="post" action="/verify_email">${hidden('uid', q.uid)}${hidden('code', q.code)}${hidden('service', q.service)}${hidden('redirectTo', q.redirectTo)}`;
    const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
    return sendPage(reply, what.kind === 'signup'
      ? {
          title: 'Confirm your email',
          body: `<h1>Confirm your email</h1><p>Confirm <strong>${escapeHtml(what.email)}</strong> as the address of your new account.</p>${form}<button type="submit">Confirm email</button></form>`,
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
    if (!b.uid || !b.code || !HEX32.test(b.uid) || !HEX32.test(b.code)) {
      return sendPage(reply, { status: 400, title: 'Invalid link', body: '<h1>This link is not valid</h1><p class="error">Open the link from the email again.</p>' });
    }
    try {
      const { signup } = await confirmations.verifyLinkCode(b.uid.toLowerCase(), b.code.toLowerCase(), contextOf(req), (err) =>
        req.log.warn({ reqId: req.id, reason: (err as Error).message }, 'sign-in notice not sent'));
      const next = safeRedirect(b.redirectTo, allowedOrigins);
      if (next) return reply.code(303).header('location', next).send();
      return sendPage(reply, {
        title: signup ? 'Email confirmed' : 'Sign-in confirmed',
        body: signup
          ? '<h1>Your email is confirmed</h1><p class="ok">Your account is ready. You can close this page.</p>'
          : '<h1>Sign-in confirmed</h1><p class="ok">You can go back to where you signed in.</p>',
      });
    } catch (err) {
      if (!isAppError(err)) throw err;
      return sendPage(reply, { status: 400, title: 'Link expired', body: `<h1>This link no longer works</h1><p class="error">${escapeHtml(err.message)}. It may have been used already; request a new email.</p>` });
    }
  });

  // Where the emailed link of a stub account's setup lands: the person chooses the first password.
  app.get('/finish_setup', { schema: { hide: true } }, async (req, reply) => {
    const q = req.query as Query;
    const valid = q.email && q.email.length <= 255 && q.token && q.token.length <= 2048 && SETUP_TOKEN.test(q.token);
    if (!valid) {
      return sendPage(reply, { status: 400, title: 'Invalid link', body: '<h1>This link is not valid</h1><p class="error">Open the link from the email again.</p>' });
    }
    return sendPage(reply, {
      title: 'Finish setting up your account',
      body: `<h1>Choose a password</h1>
<p>An account was created for <strong>${escapeHtml(q.email!)}</strong>. Choose its password to finish setting it up.</p>
<form id="setup" data-email="${escapeHtml(q.email!)}" data-token="${escapeHtml(q.token!)}">
<label for="pw">Password</label><input id="pw" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required>
<label for="pw2">Repeat it</label><input id="pw2" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required>
<button id="go" type="submit">Set password</button><p id="msg" role="status" aria-live="polite"></p></form>`,
      script: FINISH_SETUP_SCRIPT,
    });
  });

  app.get('/complete_reset_password', { schema: { hide: true } }, async (req, reply) => {
    const q = req.query as Query;
    const valid = q.email && q.email.length <= 255 && q.code && /^(?:\d{8}|\d{16})$/.test(q.code) && q.token && HEX64.test(q.token);
    if (!valid) {
      return sendPage(reply, { status: 400, title: 'Invalid link', body: '<h1>This reset link is not valid</h1><p class="error">Open the link from the email again, or ask for a new one.</p>' });
    }
    const next = safeRedirect(q.redirectTo, allowedOrigins);
    return sendPage(reply, {
      title: 'Reset your password',
      body: `<h1>Choose a new password</h1>
<p>For <strong>${escapeHtml(q.email!)}</strong>. Resetting without a recovery key replaces your encryption keys: data only your old password protected cannot be read any more.</p>
<form id="reset" data-email="${escapeHtml(q.email!)}" data-code="${escapeHtml(q.code!)}" data-token="${escapeHtml(q.token!.toLowerCase())}" data-next="${escapeHtml(next ?? '')}">
<label for="pw">New password</label><input id="pw" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required>
<label for="pw2">Repeat it</label><input id="pw2" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required>
<button id="go" type="submit">Reset password</button><p id="msg" role="status" aria-live="polite"></p></form>`,
      script: RESET_SCRIPT,
    });
  });
};

// The onepw client side in the browser with WebCrypto, shared by the pages below: HKDF, the v1 and
// v2 stretches, token ids, a JSON POST to the API, a new password's fields over a new kB, and the
// new-password form's handling (the SDK's password policy, from @tessera/protocol, first). The
// password never leaves the page.
const ONEPW_LIB = `${PASSWORD_POLICY_SCRIPT}
const NS='identity.mozilla.com/picl/v1/',te=new TextEncoder(),S=crypto.subtle;
const hex=b=>Array.from(b,x=>x.toString(16).padStart(2,'0')).join('');
const unhex=h=>new Uint8Array(h.match(/../g).map(x=>parseInt(x,16)));
const xor=(a,b)=>a.map((x,i)=>x^b[i]);
async function hkdf(ikm,info,len){const k=await S.importKey('raw',ikm,'HKDF',false,['deriveBits']);return new Uint8Array(await S.deriveBits({name:'HKDF',hash:'SHA-256',salt:new Uint8Array(0),info:te.encode(NS+info)},k,len*8));}
async function stretch(pw,salt,n){const k=await S.importKey('raw',te.encode(pw),'PBKDF2',false,['deriveBits']);const q=new Uint8Array(await S.deriveBits({name:'PBKDF2',hash:'SHA-256',salt:te.encode(salt),iterations:n},k,256));return{authPW:hex(await hkdf(q,'authPW',32)),unwrapBKey:await hkdf(q,'unwrapBkey',32)};}
async function tokenId(type,data){return hex((await hkdf(unhex(data),type,32)));}
async function post(path,auth,body){const headers={'content-type':'application/json'};if(auth)headers.authorization=auth;const r=await fetch('/v1'+path,{method:'POST',headers,body:JSON.stringify(body)});const j=await r.json();if(!r.ok)throw new Error(j.message||('HTTP '+r.status));return j;}
async function passwordFields(pw,email){const salt=NS+'quickStretchV2:'+hex(crypto.getRandomValues(new Uint8Array(16)));
const v1=await stretch(pw,NS+'quickStretch:'+email,1000),v2=await stretch(pw,salt,650000);const kB=crypto.getRandomValues(new Uint8Array(32));
return{authPW:v1.authPW,authPWVersion2:v2.authPW,wrapKb:hex(xor(kB,v1.unwrapBKey)),wrapKbVersion2:hex(xor(kB,v2.unwrapBKey)),clientSalt:salt};}
function onNewPassword(id,busy,run){const f=document.getElementById(id),msg=document.getElementById('msg'),go=document.getElementById('go');
f.addEventListener('submit',async e=>{e.preventDefault();const pw=document.getElementById('pw').value;
if(pw!==document.getElementById('pw2').value){msg.className='error';msg.textContent='The two passwords differ.';return;}
const refused=checkPassword(pw,f.dataset.email);if(refused){msg.className='error';msg.textContent=refused;return;}
go.disabled=true;msg.className='';msg.textContent=busy;
try{await run(f,pw);}catch(err){go.disabled=false;msg.className='error';msg.textContent=err.message;}});}
`;

// A reset: derive the forgot token's id, exchange the code for an accountResetToken, stretch the new
// password (v1 and v2), pick a new kB and send both wrappings.
const RESET_SCRIPT = `${ONEPW_LIB}
onNewPassword('reset','Resetting…',async(f,pw)=>{const d=f.dataset;
const {accountResetToken}=await post('/password/forgot/verify_code','Bearer fxpf_'+await tokenId('passwordForgotToken',d.token),{code:d.code});
await post('/account/reset','Bearer fxar_'+await tokenId('accountResetToken',accountResetToken),await passwordFields(pw,d.email));
f.innerHTML='<p class="ok">Your password has been reset. Sign in with the new password.</p>';
if(d.next){const a=document.createElement('a');a.href=d.next;a.textContent='Continue';f.appendChild(a);}});
`;

// Finishing a stub account: the setup token from the emailed link, the first password (v1 and v2
// stretches over a new kB), POST /account/finish_setup.
const FINISH_SETUP_SCRIPT = `${ONEPW_LIB}
onNewPassword('setup','Setting up…',async(f,pw)=>{const d=f.dataset;
await post('/account/finish_setup','',{token:d.token,...await passwordFields(pw,d.email)});
f.innerHTML='<p class="ok">Your account is ready. Sign in with your new password.</p>';});
`;
