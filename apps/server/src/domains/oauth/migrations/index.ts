import type { TesseraMigration } from '../../../storage/migrations/index.js';
import * as m0017 from './0017_add_oauth_clients.js';
import * as m0018 from './0018_add_oauth_ppid_jwt.js';
import * as m0019 from './0019_add_oauth_grant_ids.js';
import * as m0020 from './0020_add_oauth_retired_refresh_tokens.js';
import * as m0021 from './0021_add_oauth_resources_amr.js';

/** This domain's migrations, in the server's one order (names never change once released). */
export const MIGRATIONS: Record<string, TesseraMigration> = {
  '0017_add_oauth_clients': m0017,
  '0018_add_oauth_ppid_jwt': m0018,
  '0019_add_oauth_grant_ids': m0019,
  '0020_add_oauth_retired_refresh_tokens': m0020,
  '0021_add_oauth_resources_amr': m0021,
};
