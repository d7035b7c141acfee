import type { Logger } from 'pino';

/** Runs `stop` once on SIGINT or SIGTERM; a second signal exits at once. */
export function onShutdown(log: Logger, stop: () => Promise<unknown> | unknown): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal, exiting now');
      process.exit(130);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    Promise.resolve()
      .then(stop)
      .catch((error) => {
        log.error({ err: error }, 'error during shutdown');
        process.exitCode = 1;
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
