import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

// The server's logger. LOG_FORMAT=json (production's default, and whenever stdout is not a
// terminal) writes one JSON object per line; LOG_FORMAT=pretty writes readable lines for a person.
// Both write to stdout through pino's own writer, which stops writing when the reader goes away
// (EPIPE) instead of crashing the server.

/** Fields that can hold credentials: database errors can quote a failed statement's values (token ids). */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers.cookie', 'err.detail', 'err.parameters', 'err.sql'];

export function createLogger(options: { level: string; format: 'json' | 'pretty' }): Logger {
  const base = { level: options.level, redact: LOG_REDACT };
  if (options.format === 'json') return pino(base);
  return pino(base, pretty({ colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, sync: true }));
}

/**
 * stdout's reader went away (`npm start | npx pino-pretty` when npx exits): the server keeps
 * serving, log lines are dropped from then on, and stderr says so once. Other stdout errors are
 * not expected and are thrown as before.
 */
export function survivePipeClose(stream: NodeJS.WriteStream = process.stdout): void {
  let told = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    if (told) return;
    told = true;
    process.stderr.write('Standard output was closed (EPIPE): the server keeps running, without log lines on stdout. Stop it with Ctrl-C or SIGTERM.\n');
  });
}
