import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import sonicBoom, { type SonicBoom } from 'sonic-boom';
import { LOG_REDACT } from './logger.js';

// The server's logger. LOG_FORMAT=json (production's default, and whenever stdout is not a
// terminal) writes one JSON object per line; LOG_FORMAT=pretty writes readable lines for a person.
//
// Both write to stdout through one asynchronous writer that never holds the process hostage to
// stdout's reader. pino's own writer flushes synchronously on exit and retries a full pipe forever:
// a log shipper that stopped reading once kept a stopping server alive past SIGTERM, holding its
// port. Here a reader that went away (EPIPE) means lines are dropped from then on; a reader that
// stops reading (a full pipe) gets retries for `maxStallMs`, then those lines are dropped; and on
// exit the shutdown waits a bounded time for the lines still buffered (`flush`), never forever.

/** How long writes to a stdout nobody reads are retried before their lines are dropped. */
export const STDOUT_MAX_STALL_MS = 2000;

export interface ServerLogger {
  logger: Logger;
  /** Resolves when the lines logged so far are written, or after `timeoutMs`, whichever is first. */
  flush(timeoutMs: number): Promise<void>;
}

export function stdoutDestination(options: { fd?: number; maxStallMs?: number } = {}): SonicBoom {
  const maxStallMs = options.maxStallMs ?? STDOUT_MAX_STALL_MS;
  // Retries of one stall come every 100 ms (sonic-boom's busy-write pause); a longer gap starts a new stall.
  let stalledSince = 0;
  let lastRetry = 0;
  const retryEAGAIN = (): boolean => {
    const now = Date.now();
    if (now - lastRetry > 1000) stalledSince = now;
    lastRetry = now;
    return now - stalledSince < maxStallMs;
  };
  // The package is CommonJS (`module.exports = SonicBoom`); its types declare a default export.
  const Writer = sonicBoom as unknown as typeof SonicBoom;
  const dest = new Writer({ fd: options.fd ?? 1, sync: false, minLength: 0, retryEAGAIN });
  dest.on('error', (err: NodeJS.ErrnoException) => {
    // The reader is gone for good: stop writing (survivePipeClose tells stderr once).
    if (err.code === 'EPIPE') dest.write = () => true;
    // Otherwise a stalled write was given up on: those lines are lost, the next ones are tried.
  });
  return dest;
}

function flushWithin(dest: SonicBoom, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    try {
      dest.flush(() => {
        clearTimeout(timer);
        resolve();
      });
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

export function createLogger(options: { level: string; format: 'json' | 'pretty' }): ServerLogger {
  const base = { level: options.level, redact: LOG_REDACT };
  const dest = stdoutDestination();
  const logger = options.format === 'json'
    ? pino(base, dest)
    : pino(base, pretty({ colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, destination: dest }));
  return { logger, flush: (timeoutMs) => flushWithin(dest, timeoutMs) };
}
