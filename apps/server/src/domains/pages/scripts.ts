import { MODULES_PATH } from './modules.js';

// The scripts of the pages (inline module scripts, under the page's CSP nonce). They speak to the person, never in
// the API's words: every failure becomes a sentence that says what happened and what to do next.

// The onepw client side is @tessera/protocol's own modules (served by modules.ts): the stretches,
// token ids, the fields of a new password over a new kB, and the password policy. The password never
// leaves the page.
const ONEPW_IMPORTS = `
import { passwordFields } from '${MODULES_PATH}/protocol/password-fields.js';
import { deriveTokenKeys } from '${MODULES_PATH}/protocol/tokens.js';
import { randomHex } from '${MODULES_PATH}/protocol/bytes.js';
import { checkPassword } from '${MODULES_PATH}/protocol/password-policy.js';
const tokenId=(type,data)=>deriveTokenKeys(type,data).tokenId;
const newPasswordFields=async(pw,email)=>(await passwordFields(email,pw,randomHex(32))).fields;
`;

// A failed request carries the catalogue's errno, status and retryAfter; a request that reached no
// server is marked offline. sentence() turns either into words, a page's own sentences first. The
// new password is checked by the SDK's policy (checkPassword from @tessera/protocol) before anything
// is stretched or sent.
const SPEAK_LIB = `
async function post(path,auth,body){const headers={'content-type':'application/json'};if(auth)headers.authorization=auth;let r;
try{r=await fetch('/v1'+path,{method:'POST',headers,body:JSON.stringify(body)});}catch{throw{offline:true};}
let j={};try{j=await r.json();}catch{}
if(!r.ok)throw{errno:j.errno,status:r.status,retryAfter:j.retryAfter??Number(r.headers.get('retry-after')??NaN),message:j.message};return j;}
function later(s){if(!(s>0))return 'in a few minutes';if(s<60)return 'in '+Math.ceil(s)+(Math.ceil(s)===1?' second':' seconds');
const m=Math.ceil(s/60);if(m<60)return 'in '+m+(m===1?' minute':' minutes');const h=Math.ceil(m/60);return 'in '+h+(h===1?' hour':' hours');}
function sentence(err,own){if(!err||typeof err!=='object'||(!err.offline&&err.errno===undefined&&!err.status))return 'Something went wrong in this page. Reload it and try again.';
if(err.offline)return 'The Tessera server could not be reached. Check your internet connection, then try again.';
const mine=own&&own[err.errno];if(mine)return typeof mine==='function'?mine(err):mine;
if(err.errno===114)return 'Too many attempts. Wait, then try again '+later(err.retryAfter)+'.';
if(err.status===503)return 'The Tessera server is busy. Try again '+later(err.retryAfter)+'.';
if(err.status>=500)return 'Something went wrong on the Tessera server. Try again in a few minutes.';
return 'That did not work (the server said: '+(err.message||'error '+err.status)+'). Try again, or start over from the email.';}
function show(id){for(const s of document.querySelectorAll('main > section'))s.hidden=s.id!==id;const h=document.querySelector('#'+id+' h1');if(h){h.tabIndex=-1;h.focus();}}
function onNewPassword(id,busy,run){const f=document.getElementById(id),msg=document.getElementById('msg'),go=document.getElementById('go');
f.addEventListener('submit',async e=>{e.preventDefault();const pw=document.getElementById('pw').value;
const weak=checkPassword(pw,{email:f.dataset.email});if(weak){msg.className='error';msg.textContent=weak.reason;return;}
if(pw!==document.getElementById('pw2').value){msg.className='error';msg.textContent='The two passwords differ. Type the same password twice.';return;}
go.disabled=true;msg.className='';msg.textContent=busy;
try{await run(f,pw);}catch(err){go.disabled=false;msg.className='error';msg.textContent=err&&typeof err.say==='string'?err.say:sentence(err);}});}
`;

// The "email me a new reset link" form of the reset page's dead-end states: POST
// /password/forgot/send_code, which mails a new link (the reply's token is not needed here).
const NEW_LINK_LIB = `
function onNewLink(){const f=document.getElementById('again');if(!f)return;const msg=document.getElementById('again-msg'),go=f.querySelector('button');
f.addEventListener('submit',async e=>{e.preventDefault();const email=document.getElementById('again-email').value.trim();
if(!/^[^@\\s]+@[^@\\s]+$/.test(email)){msg.className='error';msg.textContent='Enter the whole email address of your account, like name@example.com.';return;}
go.disabled=true;msg.className='';msg.textContent='Sending…';
try{const body={email};if(f.dataset.next)body.redirectTo=f.dataset.next;const r=await post('/password/forgot/send_code','',body);
msg.className='ok';msg.textContent='A new reset link is on its way to '+email+'. It works for '+Math.round(r.ttl/60)+' minutes; open it from the newest email.';}
catch(err){go.disabled=false;msg.className='error';msg.textContent=sentence(err,{
102:'No Tessera account with a confirmed address uses '+email+'. Check the address for typos.',
107:'Enter the whole email address of your account, like name@example.com.',
120:'Type the address exactly as your account has it (upper and lower case included).',
133:'Mail to this address was reported as spam, so Tessera sends it nothing more.',
134:'Mail to this address bounced, so Tessera sends it nothing more.',
135:'Mail to this address bounced a moment ago. Try again in a few minutes.',
145:'Reset links go to the account\\u2019s primary address only. Use that address.',
151:'The email could not be sent. Try again in a few minutes.'});}});}
onNewLink();
`;

/** The reset page: the new-password form in the link's valid state, and the new-link form otherwise. */
export const RESET_SCRIPT = `${ONEPW_IMPORTS}${SPEAK_LIB}${NEW_LINK_LIB}
// A reset: derive the forgot token's id, exchange the code for an accountResetToken, stretch the new
// password (v1 and v2), pick a new kB and send both wrappings.
if(document.getElementById('reset'))onNewPassword('reset','Changing your password… (this takes a few seconds)',async(f,pw)=>{const d=f.dataset;let accountResetToken;
try{({accountResetToken}=await post('/password/forgot/verify_code','Bearer fxpf_'+await tokenId('passwordForgotToken',d.token),{code:d.code}));}
catch(err){if(err.errno===110){show('gone');throw{say:''};}
throw{say:sentence(err,{105:'The code in this link was replaced by a newer reset email. Open the link in the newest email.'})};}
try{await post('/account/reset','Bearer fxar_'+await tokenId('accountResetToken',accountResetToken),await newPasswordFields(pw,d.email));}
catch(err){if(err.errno===110){show('gone');throw{say:''};}throw err;}
show('done');});
`;

/** The page that finishes a stub account: its first password, POST /account/finish_setup. */
export const FINISH_SETUP_SCRIPT = `${ONEPW_IMPORTS}${SPEAK_LIB}
onNewPassword('setup','Setting up your account… (this takes a few seconds)',async(f,pw)=>{const d=f.dataset;
try{await post('/account/finish_setup','',{token:d.token,...await newPasswordFields(pw,d.email)});}
catch(err){throw{say:sentence(err,{
110:'This setup link expired or was already used. If you chose a password already, sign in with it; otherwise reset your password to set one.',
206:'This account has a password already. Sign in with it, or reset it if you forgot it.'})};}
show('done');});
`;
