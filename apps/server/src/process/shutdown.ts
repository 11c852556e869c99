import type { Server } from 'node:http';

// Stopping on SIGTERM (a process manager, `docker stop`) or SIGINT (Ctrl-C): stop accepting
// connections, let requests in progress finish for at most the configured time while saying what
// is awaited, then release the database and exit 0. A second signal exits at once with the shell's
// status for that signal (128 + its number: 130 for SIGINT, 143 for SIGTERM); a wait that runs out
// exits 1.

export interface ShutdownDeps {
  /** The listening HTTP server, to count the connections still busy. */
  http: Server;
  /** Stops the app (new requests get 503/201) and resolves when requests in progress are done. */
  closeApp(): Promise<void>;
  /** Releases what outlives the app (the database pool). */
  release(): Promise<void>;
  timeoutMs: number;
  log: { info(msg: string): void; warn(msg: string): void };
  exit(code: number): void;
}

const SIGNAL_STATUS: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export function createShutdown(deps: ShutdownDeps): (signal: string) => void {
  let stopping = false;
  return (signal: string) => {
    if (stopping) {
      deps.log.warn(`${signal} again: exiting now, without waiting for requests in progress`);
      deps.exit(SIGNAL_STATUS[signal] ?? 1);
      return;
    }
    stopping = true;
    const seconds = deps.timeoutMs / 1000;
    deps.log.info(`${signal}: shutting down (new requests get 503; send ${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to exit at once)`);
    const timer = setTimeout(() => {
      deps.log.warn(`shutdown: requests still in progress after ${seconds} s (SHUTDOWN_TIMEOUT_SECONDS): exiting without them`);
      deps.exit(1);
    }, deps.timeoutMs);
    const closed = deps.closeApp();
    // server.close() has just closed the idle keep-alive connections: those left carry a request.
    setImmediate(() => {
      deps.http.getConnections((err, count) => {
        if (!err && count > 0) {
          deps.log.info(`waiting for ${count} request${count === 1 ? '' : 's'} in progress to finish (at most ${seconds} s)`);
        }
      });
    });
    closed
      .then(() => deps.release())
      .then(() => {
        clearTimeout(timer);
        deps.log.info('stopped');
        deps.exit(0);
      })
      .catch((err: unknown) => {
        clearTimeout(timer);
        deps.log.warn(`shutdown failed: ${(err as Error).message}`);
        deps.exit(1);
      });
  };
}
