import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { LOG_REDACT } from './logger.js';

// The server's logger. LOG_FORMAT=json (production's default, and whenever stdout is not a
// terminal) writes one JSON object per line; LOG_FORMAT=pretty writes readable lines for a person.
// Both write to stdout through pino's own writer, which stops writing when the reader goes away
// (EPIPE) instead of crashing the server.

export function createLogger(options: { level: string; format: 'json' | 'pretty' }): Logger {
  const base = { level: options.level, redact: LOG_REDACT };
  if (options.format === 'json') return pino(base);
  return pino(base, pretty({ colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, sync: true }));
}
