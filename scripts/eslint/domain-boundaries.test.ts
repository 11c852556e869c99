import { afterAll, describe, it } from 'vitest';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { ESLint } from 'eslint';
import { expect } from 'vitest';
// @ts-expect-error: a plain ES module without types
import { domainBoundaries } from './domain-boundaries.mjs';

// The domain contract's lint rule, on fixtures (RuleTester) and through the repository's own
// ESLint configuration (so the rule is proven to be switched on where it must be). The fixtures'
// source root is fixtures/apps/server/src: its floors.json, and the files under its domains/
// that make the import graph (emails → two-step → recovery-phone), are what the floor checks read.
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.afterAll = afterAll;

const SRC = new URL('./fixtures/apps/server/src', import.meta.url).pathname;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' } });

tester.run('domain-boundaries', domainBoundaries, {
  valid: [
    // Through index.ts, downwards or on the same floor without a cycle.
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import type { SessionsService } from '../sessions/index.js';" },
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import type { TwoStepService } from '../two-step/index.js';" },
    { filename: `${SRC}/domains/oauth/service.ts`, code: "import type { AccountRecords } from '../account-core/index.js';" },
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import { deleteForgotOtp } from './store.js';" },
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import type { Executor } from '../../storage/executor.js';" },
    { filename: `${SRC}/domains/account-core/index.ts`, code: "export { AccountRecords } from './records.js';" },
    { filename: `${SRC}/app.ts`, code: "import { createSessionsDomain } from './domains/sessions/index.js';" },
    { filename: `${SRC}/http/auth.ts`, code: "import { parseHawk } from './hawk.js';" },
    { filename: `${SRC}/platform/keys/index.ts`, code: "import { keyRoutes } from './routes.js';" },
    { filename: '/repo/apps/server/test/storage/x.test.ts', code: "import { insertSession } from '../../src/domains/sessions/store.js';" },
    // A store names its own tables; a variable table is not checked; a service is no store.
    { filename: `${SRC}/domains/sessions/store.ts`, code: "db.selectFrom('session_tokens as s').selectAll('s').where('s.uid', '=', uid);" },
    { filename: `${SRC}/domains/account-core/store.ts`, code: "db.selectFrom('emails as e').innerJoin('accounts as a', 'a.uid', 'e.uid');" },
    { filename: `${SRC}/domains/two-step/codes-store.ts`, code: 'db.deleteFrom(table).where(\'uid\', \'=\', uid);' },
    { filename: `${SRC}/domains/two-step/service.ts`, code: "db.selectFrom('accounts');" },
    // A routes file calls services.
    { filename: `${SRC}/domains/passwords/routes.ts`, code: "import type { PasswordsService } from './service.js';" },
    { filename: `${SRC}/domains/passwords/forgot-routes.ts`, code: "import { restoreView } from './restore.js';" },
  ],
  invalid: [
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import { findSession } from '../sessions/store.js';", errors: [{ messageId: 'notIndex' }] },
    { filename: `${SRC}/domains/emails/index.ts`, code: "export { describeDevice } from '../sessions/user-agent.js';", errors: [{ messageId: 'notIndex' }] },
    { filename: `${SRC}/domains/emails/service.ts`, code: "const m = await import('../tokens/store.js');", errors: [{ messageId: 'notIndex' }] },
    { filename: `${SRC}/http/strategies.ts`, code: "import { findSessionWithAccount } from '../domains/sessions/store.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/http/strategies.ts`, code: "import type { SessionsService } from '../domains/sessions/index.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/storage/db.ts`, code: "import type { Account } from '../domains/account-core/index.js';", errors: [{ messageId: 'layer' }] },
    // Storage names no domain, not even a type: a domain adds its tables to Database from its tables.ts.
    { filename: `${SRC}/storage/schema.ts`, code: "import type { SessionsTables } from '../domains/sessions/tables.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/storage/schema.ts`, code: "import { SessionsTables } from '../domains/sessions/tables.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/storage/schema.ts`, code: "import type { SessionsService } from '../domains/sessions/index.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/storage/db.ts`, code: "import type { SessionsTables } from '../domains/sessions/tables.js';", errors: [{ messageId: 'layer' }] },
    { filename: `${SRC}/platform/health/routes.ts`, code: "import type { SessionsService } from '../../domains/sessions/index.js';", errors: [{ messageId: 'layer' }] },
    // Upward: a core domain importing a sign-in method, a sign-in method importing a relying party.
    { filename: `${SRC}/domains/sessions/service.ts`, code: "import type { TwoStepService } from '../two-step/index.js';", errors: [{ messageId: 'upward' }] },
    { filename: `${SRC}/domains/accounts/service.ts`, code: "import type { OAuthService } from '../oauth/index.js';", errors: [{ messageId: 'upward' }] },
    { filename: `${SRC}/domains/sessions/routes.ts`, code: "import { LoginBody } from '../accounts/routes.js';", errors: [{ messageId: 'notIndex' }, { messageId: 'upward' }] },
    // Cycles on one floor, closed by the linted import against the files on disk.
    {
      filename: `${SRC}/domains/recovery-phone/service.ts`, code: "import type { TwoStepService } from '../two-step/index.js';",
      errors: [{ messageId: 'cycle', data: { source: '../two-step/index.js', path: 'recovery-phone → two-step (domains/two-step/index.ts) → recovery-phone' } }],
    },
    {
      filename: `${SRC}/domains/recovery-phone/service.ts`, code: "import type { Confirmations } from '../emails/index.js';",
      errors: [{ messageId: 'cycle', data: { source: '../emails/index.js', path: 'recovery-phone → emails (domains/emails/index.ts) → two-step (domains/two-step/index.ts) → recovery-phone' } }],
    },
    { filename: `${SRC}/domains/two-step/service.ts`, code: "export type { Confirmations } from '../emails/index.js';", errors: [{ messageId: 'cycle' }] },
    // Every domain has a floor.
    { filename: `${SRC}/domains/billing/index.ts`, code: 'export const plans = [];', errors: [{ messageId: 'unlisted', data: { domain: 'billing' } }] },
    { filename: `${SRC}/domains/passwords/service.ts`, code: "import type { Plans } from '../billing/index.js';", errors: [{ messageId: 'unlisted', data: { domain: 'billing' } }] },
    // A store naming another domain's table, in a store.ts, a *-store.ts and a file under store/.
    {
      filename: `${SRC}/domains/sessions/store.ts`,
      code: "db.selectFrom('session_tokens as s').innerJoin('accounts as a', 'a.uid', 's.uid').leftJoin('totp as t', 't.uid', 's.uid');",
      errors: [{ messageId: 'foreignTable', data: { table: 'accounts', domain: 'sessions', owner: 'account-core' } }, { messageId: 'foreignTable', data: { table: 'totp', domain: 'sessions', owner: 'two-step' } }],
    },
    { filename: `${SRC}/domains/two-step/codes-store.ts`, code: "db.deleteFrom('recovery_phones').where('uid', '=', uid);", errors: [{ messageId: 'foreignTable' }] },
    { filename: `${SRC}/domains/oauth/store/clients.ts`, code: "db.selectFrom(['oauth_clients', 'jobs']);", errors: [{ messageId: 'foreignTable', data: { table: 'jobs', domain: 'oauth', owner: 'platform' } }] },
    { filename: `${SRC}/domains/passwords/store.ts`, code: 'db.updateTable(`accounts`).set({ locale: null });', errors: [{ messageId: 'foreignTable' }] },
    { filename: `${SRC}/domains/passwords/store.ts`, code: "db.insertInto('ledger').values(row);", errors: [{ messageId: 'foreignTable', data: { table: 'ledger', domain: 'passwords', owner: 'no domain' } }] },
    // A routes file importing a store: its own domain's, one under a store/ folder, another domain's.
    { filename: `${SRC}/domains/passwords/routes.ts`, code: "import { findForgotOtp } from './store.js';", errors: [{ messageId: 'routesStore' }] },
    { filename: `${SRC}/domains/oauth/grants/token-routes.ts`, code: "import { findClient } from '../store/clients.js';", errors: [{ messageId: 'routesStore' }] },
    { filename: `${SRC}/domains/passwords/routes.ts`, code: "import { findSession } from '../sessions/store.js';", errors: [{ messageId: 'routesStore' }, { messageId: 'notIndex' }] },
    { filename: `${SRC}/domains/two-step/routes.ts`, code: "import type { Codes } from './codes-store.js';", errors: [{ messageId: 'routesStore' }] },
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

  it('reads the server\'s floors.json: an upward import in a server domain file is reported', async () => {
    const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
    const filePath = new URL('../../apps/server/src/domains/sessions/floors-fixture.ts', import.meta.url).pathname;
    const up = await eslint.lintText("import type { OAuthService } from '../oauth/index.js';\nexport type F = OAuthService;\n", { filePath });
    expect(up[0]!.messages.filter((m) => m.ruleId === 'tessera/domain-boundaries').map((m) => m.message)).toEqual([expect.stringContaining('a domain imports only lower floors')]);
  });
});
