// Its tables join the Database type (tables.ts extends it) wherever the manifest is compiled.
import type {} from './tables.js';
import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import type { TokenStrategy } from '../../http/auth.js';
import { tokenConfig } from './config.js';
import { createTokensDomain } from './index.js';
import type { TokensService } from './service.js';
import type { AccountResetToken } from './store.js';

declare module '../../manifest.js' {
  interface DomainServices {
    tokens: TokensService;
    /** The account reset token strategy (recovery keys read with it without spending it). */
    accountResetTokenStrategy: TokenStrategy<AccountResetToken>;
  }
  interface DomainSettings {
    tokens: ConfigValues<typeof tokenConfig>;
  }
}

export const tokensDomain = defineDomain({
  name: 'tokens',
  tables: new URL('./tables.js', import.meta.url).href,
  config: { key: 'tokens', title: 'Token lifetimes', slice: tokenConfig },
  create: ({ config, platform }) => {
    const domain = createTokensDomain({ db: platform.db, secrets: platform.secrets, config });
    return { ...domain, provides: { accountResetTokenStrategy: domain.strategies!.accountResetToken! } };
  },
});
