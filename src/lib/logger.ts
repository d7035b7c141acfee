import { pino, type Logger } from 'pino';

/** JSON logs on stdout. Authorization headers and secrets are redacted wherever they appear. */
export function logger(level = 'info'): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.password', '*.secret', 'token'],
      censor: '[redacted]',
    },
  });
}
