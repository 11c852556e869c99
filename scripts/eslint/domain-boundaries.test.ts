import { afterAll, describe, it } from 'vitest';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { ESLint } from 'eslint';
import { expect } from 'vitest';
// @ts-expect-error: a plain ES module without types
import { domainBoundaries } from './domain-boundaries.mjs';

// The domain contract's lint rule, on fixtures (RuleTester) and through the repository's own
// ESLint configuration (so the rule is proven to be switched on where it must be).
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.afterAll = afterAll;

const SRC = '/repo/apps/server/src';
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' } });

tester.run('domain-boundaries', domainBoundaries, {
  valid: [
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import type { SessionsService } from '../sessions/index.js';" },
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import { deleteForgotOtp } from './store.js';" },
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import type { Executor } from '../../storage/executor.js';" },
    { filename: `${SRC}/domains/accounts/index.ts`, code: "export { AccountRecords } from './records.js';" },
    { filename: `${SRC}/app.ts`, code: "import { createSessionsDomain } from './domains/sessions/index.js';" },
    { filename: `${SRC}/http/auth.ts`, code: "import { parseHawk } from './hawk.js';" },
    { filename: '/repo/apps/server/test/storage/x.test.ts', code: "import { insertSession } from '../../src/domains/sessions/store.js';" },
  ],
  invalid: [
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import { findSession } from '../sessions/store.js';", errors: [{ messageId: 'notIndex' }] },
    { filename: `${SRC}/domains/sessions/routes.ts`, code: "import { LoginBody } from '../accounts/routes.js';", errors: [{ messageId: 'notIndex' }] },
    { filename: `${SRC}/domains/emails/index.ts`, code: "export { describeDevice } from '../sessions/user-agent.js';", errors: [{ messageId: 'notIndex' }] },
    { filename: `${SRC}/domains/emails/service.ts`, code: "const m = await import('../tokens/store.js');", errors: [{ messageId: 'notIndex' }] },
    { filename: `${SRC}/http/strategies.ts`, code: "import { findSessionWithAccount } from '../domains/sessions/store.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/http/strategies.ts`, code: "import type { SessionsService } from '../domains/sessions/index.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/storage/db.ts`, code: "import type { Account } from '../domains/accounts/index.js';", errors: [{ messageId: 'layer' }] },
  ],
});

describe('the repository ESLint configuration', () => {
  it('reports a cross-domain import in a server domain file and passes the same file without it', async () => {
    const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
    const filePath = new URL('../../apps/server/src/domains/passwords/boundary-fixture.ts', import.meta.url).pathname;
    const bad = await eslint.lintText("import { findSession } from '../sessions/store.js';\nexport const f = findSession;\n", { filePath });
    expect(bad[0]!.messages.map((m) => m.ruleId)).toContain('tessera/domain-boundaries');
    const good = await eslint.lintText("import { SessionsService } from '../sessions/index.js';\nexport const f = SessionsService;\n", { filePath });
    expect(good[0]!.messages.filter((m) => m.ruleId === 'tessera/domain-boundaries')).toEqual([]);
  });
});
