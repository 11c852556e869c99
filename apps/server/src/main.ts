#!/usr/bin/env node
// config → storage (migrated) → app → listen. `npm start` runs this after building.
import { createApp } from './app.js';
import { ConfigError } from './config-schema.js';
import { loadConfig } from './config.js';
import { serverSecret } from './crypto/dev-secret.js';
import { migrateToLatest, openStorage } from './storage/db.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const storage = openStorage(config.server.databaseUrl, {
    poolSize: config.server.databasePoolSize,
    onError: (err) => process.stderr.write(`database connection error (the pool reconnects): ${err.message}\n`),
  });
  // The secret goes to the migrations too: stored tokens are keyed under it (0005_key_token_ids).
  await migrateToLatest(storage.db, { authSecret: serverSecret(config.server) });
  const app = await createApp({ config, storage });
  const { server } = app;
  await server.listen({ port: config.server.port, host: config.server.host });

  const base = config.server.publicUrl;
  const portal = server.hasRoute({ method: 'GET', url: '/ecosystem-platform/*' });
  const lines = [
    '',
    'Tessera is running.',
    `  Account API         ${base}/v1  (OpenAPI: ${base}/v1/openapi.json)`,
    portal ? `  Developer portal    ${base}/ecosystem-platform/` : '  Developer portal    not built (npm run build -w apps/portal)',
    `  Database            ${config.server.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')}`,
    `  Mail                ${config.mail.smtpUrl ? 'SMTP' : `outbox in ${config.server.dataDir}/outbox${config.server.nodeEnv === 'production' ? '' : ' (codes are logged)'}`}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.log.info({ signal }, 'shutting down');
    await app.close();
    await storage.destroy();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${err.message}\n`);
  } else {
    process.stderr.write(`Tessera failed to start: ${(err as Error).stack ?? String(err)}\n`);
  }
  process.exit(1);
});
