// What the server writes to stdout: the JSON or pretty logger and its stdout writer are in
// logger-factory.ts (it loads pino); this part has no dependencies, so main.ts can install it first.

/** Fields that can hold credentials: database errors can quote a failed statement's values (token ids). */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["tessera-support-secret"]', 'err.detail', 'err.parameters', 'err.sql'];

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
