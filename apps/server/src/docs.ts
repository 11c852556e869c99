// What the documentation generators (scripts/generate/*.mjs) read from the server: the single
// sources of the portal's reference tables.
export { configSlices, PLATFORM_SLICES } from './config.js';
export { DOMAINS } from './app.js';
export { composeDeclarations } from './composition.js';
export type { ConfigKey } from './config-schema.js';
export { SUPPORTED_LOCALES, renderParts, translator } from './senders/mail/render.js';
export { MIGRATIONS } from './storage/migrations/index.js';
export { openStorage, migrateToLatest } from './storage/db.js';
export { SECURITY_EVENTS } from './domains/security-events/index.js';
export { DEFAULT_RULES, formatDuration, parseRules } from './domains/customs/index.js';
