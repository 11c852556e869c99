import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The logger never holds the process hostage to stdout's reader: a log shipper that stops reading
// (a full pipe) once kept a stopping server waiting forever in pino's exit flush, past SIGTERM.
// The server exits the same way: a bounded flush, then process.exit.

const FACTORY = fileURLToPath(new URL('../../dist/process/logger-factory.js', import.meta.url));

function logThenExit(format: 'json' | 'pretty') {
  const script = `
    const { createLogger } = await import(${JSON.stringify(FACTORY)});
    const { logger: log, flush } = createLogger({ level: 'info', format: ${JSON.stringify(format)} });
    for (let i = 0; i < 20000; i++) log.info({ i, pad: 'x'.repeat(60) }, 'a line nobody reads');
    process.stderr.write('written\\n');
    await flush(3000);
    process.exit(0);
  `;
  // stdout is a pipe this test never reads: it fills after about 64 KiB and stays full.
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d));
  return new Promise<{ code: number | null; err: string; stdoutStillOpen: boolean }>((resolve) =>
    child.on('exit', (code) => {
      const stdoutStillOpen = !child.stdout.destroyed;
      child.stdout.destroy();
      resolve({ code, err, stdoutStillOpen });
    }),
  );
}

describe('logging to a stdout nobody reads', () => {
  for (const format of ['json', 'pretty'] as const) {
    it(`${format}: the process still exits, dropping the lines it cannot write`, { timeout: 60_000 }, async () => {
      const { code, err, stdoutStillOpen } = await logThenExit(format);
      expect(err).toContain('written');
      expect(code).toBe(0);
      // The reader was there all along (never reading), so the exit was not an EPIPE.
      expect(stdoutStillOpen).toBe(true);
    });
  }
});
