import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../harness.js';

// Issue 23: the pages run @tessera/protocol's own compiled modules in the browser (no copy of the
// onepw crypto). The server hands out those modules and the @noble/hashes ones they import, nothing
// else; the page's import map and its nonce'd module script load them under the page's strict CSP.

describe('the modules the pages load', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(async () => t?.close());

  it('serves @tessera/protocol and @noble/hashes modules as JavaScript', async () => {
    for (const path of ['/pages/js/protocol/stretch.js', '/pages/js/protocol/password-fields.js', '/pages/js/noble-hashes/_md.js']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(await (await fetch(`${t.url}/pages/js/protocol/stretch.js`)).text()).toContain('export async function stretchV2');
  });

  it('serves nothing else: other packages, other files, paths out of the folders', async () => {
    for (const path of ['/pages/js/errors/index.js', '/pages/js/protocol/stretch.d.ts', '/pages/js/protocol/nope.js', '/pages/js/protocol/..%2Fpackage.json', '/pages/js/protocol/%2E%2E%2Fsrc%2Findex.js']) {
      expect((await fetch(`${t.url}${path}`)).status, path).toBe(404);
    }
  });

  it('a page that runs a script sends an import map and a module script, both under its nonce', async () => {
    const res = await fetch(`${t.url}/complete_reset_password`);
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1];
    const html = await res.text();
    expect(html).toContain(`<script type="importmap" nonce="${nonce}">`);
    expect(html).toContain(`<script type="module" nonce="${nonce}">`);
    expect(html).toContain("from '/pages/js/protocol/password-fields.js'");
  });
});
