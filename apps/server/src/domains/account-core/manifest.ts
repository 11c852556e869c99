// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { MIGRATIONS } from './migrations/index.js';
import { accountsConfig } from './config.js';
import { createAccountRecords, type AccountRecords } from './index.js';

declare module '../../manifest.js' {
  interface DomainServices {
    records: AccountRecords;
  }
  interface DomainSettings {
    accounts: ConfigValues<typeof accountsConfig>;
  }
}

export const accountCoreDomain = defineDomain({
  name: 'account-core',
  tables: new URL('./tables.js', import.meta.url).href,
  migrations: MIGRATIONS,
  key: 'records',
  config: { key: 'accounts', title: 'Accounts', slice: accountsConfig },
  create: ({ config, platform }) => ({
    name: 'account-core',
    service: createAccountRecords({
      db: platform.db, lifecycle: platform.lifecycle,
      codeBudget: { maxFailures: config.codeFailuresMax, resetMaxFailures: config.resetCodeFailuresMax, windowMs: config.codeFailureWindowSeconds * 1000 },
    }),
  }),
});
