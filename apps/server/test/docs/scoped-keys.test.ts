import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveScopedKey, randomHex } from '@tessera/protocol';
import { codeBlocks, pageFolder, repoRoot, runShell, TSC, tsFiles } from './pages.js';

// explanation/scoped-keys.md shows the general derivation without the SDK: that code, compiled as
// the pages compile theirs, gives the keys @tessera/protocol's deriveScopedKey gives.

const PAGE = join(repoRoot, 'apps/portal/docs/explanation/scoped-keys.md');

type ScopedKeyFn = (kB: string, uid: string, data: { identifier: string; keyRotationSecret: string; keyRotationTimestamp: number }) => { kty: 'oct'; kid: string; k: string };

describe('scoped-keys.md: the derivation shown without the SDK', () => {
  let folder: ReturnType<typeof pageFolder> | undefined;
  beforeAll(() => {
    folder = pageFolder();
  });
  afterAll(() => folder?.remove());

  it('derives the keys deriveScopedKey derives', async () => {
    const files = tsFiles(codeBlocks(readFileSync(PAGE, 'utf8')));
    expect([...files.keys()]).toEqual(['scoped-key.ts']);
    writeFileSync(join(folder!.dir, 'scoped-key.ts'), files.get('scoped-key.ts')!);
    const compiled = await runShell(`${TSC} scoped-key.ts`, { cwd: folder!.dir });
    expect(compiled.status, compiled.output).toBe(0);
    const { scopedKey } = (await import(pathToFileURL(join(folder!.dir, 'scoped-key.js')).href)) as { scopedKey: ScopedKeyFn };
    for (const [identifier, keyRotationTimestamp, secret] of [
      ['https://identity.mozilla.com/apps/notes', 1_510_726_317_123, '0'.repeat(64)],
      ['app_key:https%3A//example.com', 1_700_000_000_499, randomHex(32)],
      ['https://identity.mozilla.com/apps/notes', 1_700_000_000_500, randomHex(32)],
    ] as const) {
      const input = { kB: randomHex(32), uid: randomHex(16), identifier, keyRotationSecret: secret, keyRotationTimestamp };
      expect(scopedKey(input.kB, input.uid, input)).toEqual(deriveScopedKey(input));
    }
  }, 120_000);
});
