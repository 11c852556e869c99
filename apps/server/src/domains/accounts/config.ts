import { defineConfig, str } from '../../config-schema.js';

/** Who may create accounts without a password (stub accounts, for checkouts and the like). */
export const accountsConfig = defineConfig({
  stubClientIds: {
    env: 'ACCOUNT_STUB_CLIENT_IDS', default: '', parse: str,
    description: 'Comma-separated OAuth client ids (confidential clients, registered with `npm run admin -- clients add`) allowed to create stub accounts with `POST /v1/account/stub`, authenticating with their secret. Empty: nobody can.',
  },
});
