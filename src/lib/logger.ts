import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export interface LoggerOptions {
  /** Human-readable lines instead of JSON; by default when stdout is an interactive terminal. */
  pretty?: boolean;
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
  if (!pretty) return pino(settings);
  return pino(settings, PinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true }));
}
