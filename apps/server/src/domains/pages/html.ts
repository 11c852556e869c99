import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../../senders/mail/render.js';
import { IMPORT_MAP } from './modules.js';

// The few HTML pages the auth server itself serves (emailed links land on them). They are small,
// self-contained and locked down by a strict Content-Security-Policy with a per-response nonce.

export { escapeHtml };

export interface Page {
  title: string;
  /** Trusted HTML (callers escape what they interpolate). */
  body: string;
  /** A module script (it may import @tessera/protocol's modules, see modules.ts). */
  script?: string;
  status?: number;
}

// On a phone the card keeps 1rem from the screen's edges (the body's padding), and long words
// (an email address, a command) wrap instead of pushing the card past the edge.
const STYLE = `
body{margin:0;padding:1rem;font:16px/1.5 system-ui,sans-serif;background:#f9f9fb;color:#20123a}
main{max-width:28rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002;overflow-wrap:anywhere}
@media (max-width:30rem){main{margin:0 auto;padding:1.25rem}}
h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}label{display:block;margin:1rem 0 .25rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #8f8f9d;border-radius:4px;font:inherit}
button,.button{display:inline-block;margin-top:1.25rem;padding:.7rem 1.2rem;background:#0060df;color:#fff;border:0;border-radius:4px;font:600 1rem system-ui,sans-serif;cursor:pointer;text-decoration:none}
button[disabled]{background:#5b5b66}.error{color:#a4000f}.ok{color:#054096}a{color:#0060df}.hint{color:#5b5b66;font-size:.9rem}
code{font:.9rem ui-monospace,monospace;background:#f0f0f4;padding:.1rem .3rem;border-radius:3px}
.command{display:block;margin-top:.25rem;padding:.5rem}
[hidden]{display:none!important}`;

// The import map comes first: a module script's imports are resolved with the map in force then.
function scripts(nonce: string, module: string): string {
  return `<script type="importmap" nonce="${nonce}">${IMPORT_MAP}</script><script type="module" nonce="${nonce}">${module}</script>`;
}

export function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  reply.header('content-security-policy', [
    "default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src 'nonce-${nonce}'`, "connect-src 'self'",
    "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
  ].join('; '));
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cache-control', 'no-store');
  reply.header('x-content-type-options', 'nosniff');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(page.title)} · Tessera</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${page.body}</main>${page.script ? scripts(nonce, page.script) : ''}</body></html>`;
  return reply.code(page.status ?? 200).type('text/html; charset=utf-8').send(html);
}

