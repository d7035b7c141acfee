import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export interface LoggerOptions {
  /** Human-readable lines instead of JSON; by default when stdout is an interactive terminal. */
  pretty?: boolean;
  /** Where lines go (stdout by default). */
  destination?: NodeJS.WritableStream;
}

/**
 * Logs on stdout: JSON (one object a line) for log collectors, or human-readable coloured lines
 * when a person watches the terminal. Authorization headers and secrets are redacted wherever they appear.
 */
export function logger(level = 'info', options: LoggerOptions = {}): Logger {
  const settings = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.password', '*.secret', 'token'],
      censor: '[redacted]',
    },
  };
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  if (!pretty) return options.destination ? pino(settings, options.destination) : pino(settings);
  const colorize = options.destination === undefined;
  return pino(
    settings,
    PinoPretty({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true, destination: options.destination ?? 1 }),
  );
}
