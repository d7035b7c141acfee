import { pino, type Logger } from 'pino';

/** Query parameters that carry credentials (visitor tokens, share keys): their values never reach a log line. */
// Also inside an encoded URL passed as a parameter (`url=…%3FshareKey%3D…`).
const SECRET_PARAMS = /((?:[?&]|%3F|%26)(?:visitorAuthToken|shareKey|jwt_token|token)(?:=|%3D))[^&#%]*/gi;
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, '$1[redacted]');

/** JSON logs on stdout. Authorization headers and secrets are redacted wherever they appear. */
export function logger(level = 'info'): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.password', '*.secret', 'token'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method?: string; url?: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }) => ({
        method: req.method,
        url: req.url === undefined ? undefined : redactUrl(req.url),
        hostname: req.hostname,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  });
}
