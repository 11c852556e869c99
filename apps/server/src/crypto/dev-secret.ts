import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The AUTH_SECRET of a development data folder: 32 random bytes (64 hex) generated once into
 * `file` (mode 0600) and read back on later starts, so codes and setup tokens survive a restart.
 * Never a value published anywhere; production sets AUTH_SECRET itself (config.ts refuses to start
 * without it).
 */
export function developmentSecret(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    // 'wx': if another process made it first, keep theirs.
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds no usable secret (fewer than 32 characters): delete it to have a new one made`);
  return secret;
}

/**
 * The server secret in force: AUTH_SECRET, else the development data folder's. The server, its
 * migrations (stored tokens are keyed under it) and the admin CLI all take it from here.
 */
export function serverSecret(server: { authSecret: string; dataDir: string }): string {
  return server.authSecret || developmentSecret(join(server.dataDir, 'auth-secret'));
}
