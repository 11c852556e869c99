#!/usr/bin/env node
// config → writable paths → keys → storage (migrated) → app → listen. `npm start` runs this after
// building. Every failure of the environment ends as one line on stderr and status 1
// (process/startup-errors.ts); only a bug prints a stack trace.
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError } from './config-schema.js';
import { migrationsOf } from './app.js';
import { loadConfig, type Config } from './config.js';
import { serverSecret } from './crypto/dev-secret.js';
import { loadSigningKey, type SigningKey } from './platform/keys/index.js';
import { survivePipeClose } from './process/logger.js';
import { checkPortFree, checkWritablePaths } from './process/preflight.js';
import { createShutdown } from './process/shutdown.js';
import { databaseStartupError, listenStartupError, signingKeyStartupError, StartupError } from './process/startup-errors.js';
import { maskDatabaseUrl } from './storage/database-url.js';
import type { Storage } from './storage/db.js';

// The database drivers, Fastify and the domains load only once the environment has passed the
// checks: a configuration error is reported at once, even on a busy machine.

function signingKey(config: Config): SigningKey {
  const { signingKeyFile, dataDir, nodeEnv } = config.server;
  const devFile = join(dataDir, 'signing-key.pem');
  try {
    return loadSigningKey({ file: signingKeyFile, devFile, production: nodeEnv === 'production' });
  } catch (err) {
    throw signingKeyStartupError(err, signingKeyFile || devFile, signingKeyFile ? 'SIGNING_KEY_FILE' : 'DATA_DIR');
  }
}

function secret(config: Config): string {
  try {
    return serverSecret(config.server);
  } catch (err) {
    const file = join(config.server.dataDir, 'auth-secret');
    throw new StartupError(`DATA_DIR (${config.server.dataDir}): the development secret ${file} cannot be used (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): make it readable by the server's user, delete it to have a new one made, or set AUTH_SECRET`, { cause: err });
  }
}

async function database(config: Config, authSecret: string, log: Logger): Promise<Storage> {
  const url = config.server.databaseUrl;
  let storage: Storage | undefined;
  const { migrateToLatest, openStorage } = await import('./storage/db.js');
  try {
    storage = openStorage(url, {
      poolSize: config.server.databasePoolSize,
      onError: (err) => log.warn({ reason: err.message }, 'database connection error (the pool reconnects)'),
    });
    // The secret goes to the migrations too: stored tokens are keyed under it (0005_key_token_ids).
    await migrateToLatest(storage.db, { authSecret }, migrationsOf());
    return storage;
  } catch (err) {
    await storage?.destroy().catch(() => undefined);
    throw databaseStartupError(err, url);
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  survivePipeClose();
  checkWritablePaths(config);
  await checkPortFree(config.server.port, config.server.host);
  const key = signingKey(config);
  const authSecret = secret(config);
  const { createLogger } = await import('./process/logger-factory.js');
  const { logger, flush: flushLogs } = createLogger({ level: config.server.logLevel, format: config.server.logFormat });
  const storage = await database(config, authSecret, logger);
  const { createApp } = await import('./app.js');
  const app = await createApp({ config, storage, signingKey: key, logger });
  const { server } = app;
  const { port, host } = config.server;
  try {
    await server.listen({ port, host });
  } catch (err) {
    await app.close().catch(() => undefined);
    await storage.destroy().catch(() => undefined);
    throw listenStartupError(err, host, port) ?? err;
  }

  const base = config.server.publicUrl;
  const portal = server.hasRoute({ method: 'GET', url: '/ecosystem-platform/*' });
  const lines = [
    '',
    'Tessera is running.',
    `  Account API         ${base}/v1  (OpenAPI: ${base}/v1/openapi.json)`,
    portal ? `  Developer portal    ${base}/ecosystem-platform/` : '  Developer portal    not built (npm run build -w apps/portal)',
    `  Health              ${base}/__heartbeat__  ${base}/__version__`,
    `  Database            ${maskDatabaseUrl(config.server.databaseUrl)}`,
    `  Mail                ${config.mail.smtpUrl ? 'SMTP' : `outbox in ${config.server.dataDir}/outbox${config.server.nodeEnv === 'production' ? '' : ' (codes are logged)'}`}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');

  const shutdown = createShutdown({
    http: server.server,
    closeApp: () => app.close(),
    release: () => storage.destroy(),
    timeoutMs: config.server.shutdownTimeoutSeconds * 1000,
    log: { info: (m) => server.log.info(m), warn: (m) => server.log.warn(m) },
    // The lines of the shutdown itself reach stdout, unless its reader has stalled (then at most 1 s).
    exit: (code) => void flushLogs(1000).then(() => process.exit(code)),
  });
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${err.message}\n`);
  } else if (err instanceof StartupError) {
    process.stderr.write(`Start-up error: ${err.message}\n`);
  } else {
    // Not a known fault of the environment: the stack is what a bug report needs.
    process.stderr.write(`Tessera failed to start: ${(err as Error).stack ?? String(err)}\n`);
  }
  process.exit(1);
});
