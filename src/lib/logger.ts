import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export interface LoggerOptions {
  /** Human-readable lines instead of JSON; by default when stdout is an interactive terminal. */
  pretty?: boolean;
  /** Where lines go (stdout by default). */
  destination?: NodeJS.WritableStream;
}

/**
 * Query parameters that may carry credentials: any name with token, key, secret, password,
 * signature, auth, jwt, session or credential in it, or `sig` (`access_token`, `shareKey`, `X-Amz-Signature`,
 * `visitorAuthToken`…). Their values never reach a log line, also inside an encoded URL passed as a
 * parameter (`url=…%3FshareKey%3D…`); the value ends at the next `&`, `#` or their encoded forms.
 */
const SECRET_PARAMS =
  /((?:[?&]|%3F|%26)(?:[\w.-]*(?:token|key|secret|passw|pwd|signature|auth|jwt|session|credential)[\w.-]*|sig)(?:=|%3D))(?:(?!%26|%23)[^&#])*/gi;
/** Path segments that are secrets themselves: the id of an organization invite link joins with it. */
const SECRET_SEGMENTS = /(\/(?:link-)?invites\/)[^/?#]+/gi;
/**
 * Path segments of a share link's key's form (32 characters of base64url, domain/sites/urls.ts), as
 * published URLs carry the key (`{site}/{key}/…`), also inside an encoded URL passed as a parameter
 * (`url=https%3A%2F%2F…%2F{key}%2F…`). Nothing else the service names is of that length.
 */
const SHARE_KEY_SEGMENTS = /(\/|%2F)[A-Za-z0-9_-]{32}(?=$|[/?#&]|%2F|%3F|%23|%26)/gi;
export const redactUrl = (url: string) =>
  url.replace(SECRET_PARAMS, '$1[redacted]').replace(SECRET_SEGMENTS, '$1[redacted]').replace(SHARE_KEY_SEGMENTS, '$1[redacted]');

/**
 * Logs on stdout: JSON (one object a line) for log collectors, or human-readable coloured lines
 * when a person watches the terminal. Authorization headers, secrets and credentials in request
 * URLs are redacted wherever they appear.
 */
export function logger(level = 'info', options: LoggerOptions = {}): Logger {
  const settings = {
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
  };
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  if (!pretty) return options.destination ? pino(settings, options.destination) : pino(settings);
  const colorize = options.destination === undefined;
  return pino(
    settings,
    PinoPretty({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true, destination: options.destination ?? 1 }),
  );
}
