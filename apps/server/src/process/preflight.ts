import { accessSync, constants, existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';
import { listenStartupError, StartupError } from './startup-errors.js';

// Checks made before anything is opened, so that a folder the server cannot write is reported at
// start with its variable, not as a 500 at the first sign-up (the outbox) or a stack trace from
// deep inside SQLite.

/** Throws unless `dir` exists (it is created if missing) and this process can create files in it. */
function checkWritableDir(dir: string, label: string, fix: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    // A real write: access(2) says yes to root even on a read-only mount's files in some cases,
    // and a probe file is what the server will do next anyway.
    const probe = join(dir, `.write-check-${process.pid}`);
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why = code === 'EROFS' ? 'is on a read-only file system' : code === 'ENOTDIR' || code === 'EEXIST' ? 'is not a folder' : `is not writable by this user (${code})`;
    throw new StartupError(`${label}: ${why}: ${fix}`, { cause: err });
  }
}

/** The files the configuration will write, checked in the order the server would touch them. */
export function checkWritablePaths(config: Config): void {
  const { dataDir, authSecret, signingKeyFile, databaseUrl } = config.server;
  const fixDataDir = 'make it writable by the server\'s user, or set DATA_DIR to a folder that is';
  // The development secrets and signing key are written into DATA_DIR itself.
  if (!authSecret || !signingKeyFile || !config.mfa.jwtSecret) checkWritableDir(dataDir, `DATA_DIR (${dataDir})`, fixDataDir);
  if (!config.mail.smtpUrl) {
    const outbox = join(dataDir, 'outbox');
    checkWritableDir(outbox, `DATA_DIR (${dataDir}): the mail outbox ${outbox}`, `make it writable by the server's user, set DATA_DIR to a writable folder, or set SMTP_URL to send mail instead`);
  }
  if (databaseUrl.startsWith('sqlite:') && databaseUrl !== 'sqlite::memory:') {
    const file = databaseUrl.slice('sqlite:'.length);
    const shown = `DATABASE_URL (${databaseUrl})`;
    if (existsSync(file)) {
      try {
        accessSync(file, constants.R_OK | constants.W_OK);
      } catch (err) {
        throw new StartupError(`${shown}: the SQLite file ${file} is read-only for this user (${(err as NodeJS.ErrnoException).code}): make it writable by the server's user, or point DATABASE_URL elsewhere`, { cause: err });
      }
    }
    // SQLite creates the file and its -wal and -shm companions beside it.
    checkWritableDir(dirname(file), `${shown}: the folder of the SQLite file ${file}`, 'SQLite writes the database and its -wal and -shm files there: make it writable, or point DATABASE_URL elsewhere');
  }
}

/**
 * Fails fast when HOST:PORT cannot be bound, before the database is opened and migrated (the real
 * listen reports the same errors, should another process take the port in between).
 */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err) => reject(listenStartupError(err, host, port) ?? err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
