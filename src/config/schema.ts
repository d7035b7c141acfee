/**
 * The environment of the service, declared once: every variable it reads, with its spelling, its
 * default, its bounds and one line saying what it does. `loadConfig` (src/config.ts) reads the
 * environment with it and maps the values to `Config`; `.env.example` lists the same names
 * (test/unit/env-example.test.ts keeps the two in step).
 *
 * A variable's value is text, so every setting is a TypeBox string schema: its pattern (and, where a
 * pattern cannot say it, a refinement) decides which values are accepted, and its decoder turns the
 * text into what the code uses: milliseconds, bytes, a port, a list. Each kind of value (duration,
 * byte size, port, URL, boolean, comma list, …) is converted by one function below. Values are
 * trimmed, and an empty one counts as unset. Besides JSON Schema's keywords a setting carries:
 *
 * - `errorMessage`: the problem reported for a value its pattern refuses (`{name}` and `{value}` are
 *   filled in); a refinement reports its own message;
 * - `onlyWhen`: the setting is read only when other settings have these values (S3_* with
 *   BLOB_STORE=s3), and is left unset otherwise; `mandatory`: it must then be set; `together`: it
 *   is set together with that other setting, or both are left unset (its `errorMessage` otherwise);
 * - `shown`: how a refused value is quoted (URLs without their password); a list quotes each refused
 *   entry, in a problem of its own.
 */
import { isIP } from 'node:net';
import { Type, type StaticDecode, type TCodec, type TObject, type TString } from 'typebox';
import { Value } from 'typebox/value';
import { parseDuration } from '../domain/duration.ts';
import { isIpLiteral } from '../domain/net.ts';

/** The keywords of ours on a setting's schema (see above). */
interface SettingKeywords {
  errorMessage: string;
  onlyWhen?: Record<string, string>;
  mandatory?: true;
  together?: string;
  shown?: (value: string) => string | string[];
}

interface SettingSpec<T> extends Partial<Omit<SettingKeywords, 'errorMessage'>> {
  description: string;
  /** The default, spelled as in the environment; settings without one are Type.Optional. */
  default?: string;
  pattern?: string;
  /** The problem when the pattern refuses the value. */
  message: string;
  /** Checks a pattern cannot make, each with its problem; the first that fails is reported. */
  checks?: [check: (value: string) => boolean, message: string][];
  decode: (value: string) => T;
}

/** A setting: a string schema with our keywords, its refinements and its decoder. */
function setting<T>({ pattern, message, checks = [], decode, ...keywords }: SettingSpec<T>): TCodec<TString, T> {
  const options = Object.fromEntries(Object.entries({ pattern, errorMessage: message, ...keywords }).filter(([, v]) => v !== undefined));
  // A refinement judges only what the pattern accepts (the pattern reports the rest).
  const shape = new RegExp(pattern ?? '');
  const refined = checks.reduce<TString>(
    (schema, [check, problem]) =>
      Type.Refine(
        schema,
        (value: string) => !shape.test(value) || check(value),
        () => problem,
      ),
    Type.String(options),
  );
  return Type.Decode(refined, decode);
}

// --- Kinds of values ------------------------------------------------------------------------------

type Options = Pick<SettingSpec<unknown>, 'description' | 'default' | 'onlyWhen' | 'mandatory' | 'together'>;

/** Free text, or text of a given shape (`pattern`, `checks`) with the problem `message`. */
function text(options: Options & Partial<Pick<SettingSpec<string>, 'pattern' | 'message' | 'checks' | 'shown'>>) {
  return setting({ message: '{name}="{value}" is not accepted', ...options, decode: (value) => value });
}

/** An absolute path. */
function absolutePath(options: Options & { example: string }) {
  const { example, ...rest } = options;
  return text({ ...rest, pattern: '^/', message: `{name}="{value}" must be an absolute path, for example ${example}` });
}

/** A key of `bytes` bytes in base64; problems never quote it. */
function base64Key(options: Options & { bytes: number }) {
  const { bytes, ...rest } = options;
  const message = `{name} must be ${bytes} bytes encoded in base64 (for example: openssl rand -base64 ${bytes})`;
  return text({ ...rest, message, checks: [[(value) => Buffer.from(value, 'base64').length === bytes, message]] });
}

/** A TCP port: 0 to 65535. */
function port(options: Options) {
  const message = '{name}="{value}" must be a port number between 0 and 65535';
  return setting({ ...options, pattern: '^\\d{1,5}$', message, checks: [[(value) => Number(value) <= 65535, message]], decode: Number });
}

/** A whole number from `min` to `max`; `zero` says what 0 means when it is allowed. */
function count(options: Options & { min: 0 | 1; max: number; zero?: string }) {
  const { min, max, zero, ...rest } = options;
  const message = `{name}="{value}" must be a whole number from ${min}${zero ? ` (${zero})` : ''} to ${max}`;
  const inRange = (value: string) => Number(value) >= min && Number(value) <= max;
  return setting({ ...rest, pattern: '^\\d+$', message, checks: [[inRange, message]], decode: Number });
}

/** One of a few words, as written. */
function oneOf<const V extends string>(values: readonly V[], options: Options) {
  const words = values.length === 2 ? values.join(' or ') : `one of ${values.join(', ')}`;
  return setting({
    ...options,
    pattern: `^(${values.join('|')})$`,
    message: `{name}="{value}" must be ${words}`,
    decode: (value) => value as V,
  });
}

/** `pattern` matching `word` in any letter case. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('');

/** true or false (any case), or 1 or 0. */
function flag(options: Options) {
  return setting({
    ...options,
    pattern: `^(${anyCase('true')}|${anyCase('false')}|1|0)$`,
    message: '{name}="{value}" must be true or false',
    decode: (value) => value === '1' || value.toLowerCase() === 'true',
  });
}

const DURATION = '^(\\d+(\\.\\d+)?|(\\d+(\\.\\d+)?(ms|s|m|h|d|w))+)$';

/**
 * A duration in milliseconds: `7d`, `36h`, `90m`, `15s`, `250ms`, `1d12h`, or a bare number of
 * seconds (of milliseconds with `bare: 'ms'`). Bounds are durations too; `positive` refuses zero;
 * `zeroOff` accepts 0 (off) besides the bounds.
 */
function duration(options: Options & { bare?: 's' | 'ms'; positive?: true; min?: string; max?: string; zeroOff?: true }) {
  const { bare = 's', positive, min, max, zeroOff, ...rest } = options;
  const toMs = (value: string) => (bare === 'ms' && /^\d+$/.test(value) ? Number(value) : parseDuration(value));
  const [low, high] = [positive ? 1 : toMs(min ?? '0'), max === undefined ? Infinity : toMs(max)];
  const range = positive ? 'must be longer than zero' : max !== undefined ? `must be from ${min} to ${max}` : `must be at least ${min}`;
  const bounds = zeroOff ? `must be 0 (off) or ${range.replace(/^must be /, '')}` : range;
  return setting({
    ...rest,
    pattern: DURATION,
    message:
      bare === 'ms'
        ? '{name}="{value}" must be milliseconds or a duration such as 10s or 1m30s'
        : '{name}: "{value}" is not a duration (examples: 7d, 12h, 30m, 5s, 500ms)',
    checks:
      low > 0 || high < Infinity
        ? [[(value) => (zeroOff && toMs(value) === 0) || (toMs(value) >= low && toMs(value) <= high), `{name}="{value}" ${bounds}`]]
        : [],
    decode: toMs,
  });
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bytes: `65536`, `65536b`, `64KiB`, `64 KiB`, `10MiB`, `1GiB` (any case). */
function toBytes(value: string): number {
  const [, digits, unit] = /^(\d+)\s*(\w*)$/.exec(value)!;
  return Number(digits) * BYTE_UNITS[unit.toLowerCase()];
}

/** A byte size from 1 byte (or `min`) to `max` (both written like `1 KiB`), at most 2^53 - 1. */
function byteSize(options: Options & { min?: string; max?: string }) {
  const { min, max, ...rest } = options;
  const message =
    max === undefined
      ? '{name}="{value}" must be a positive number of bytes, optionally with KiB, MiB or GiB'
      : `{name}="{value}" must be between ${min} and ${max}: bytes, or a number with KiB, MiB or GiB`;
  const [low, high] = [min === undefined ? 1 : toBytes(min), max === undefined ? Number.MAX_SAFE_INTEGER : toBytes(max)];
  return setting({
    ...rest,
    pattern: `^\\d+\\s*([Bb]|[KkMmGg][Ii][Bb])?$`,
    message,
    checks: [[(value) => toBytes(value) >= low && toBytes(value) <= high, message]],
    decode: toBytes,
  });
}

/** Hides the password of a URL so configuration errors never print a secret. */
export function redact(value: string): string {
  try {
    const u = new URL(value);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return value.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

/**
 * A URL of one of `protocols` (`['http:', 'https:']`); `bare` ones have no credentials, query or
 * fragment. Problems show it without its password.
 */
function url(options: Options & { protocols: string[]; bare?: true; message?: string; checks?: SettingSpec<string>['checks'] }) {
  const { protocols, bare, checks = [], ...rest } = options;
  const message = options.message ?? `{name}="{value}" must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`;
  const parses = (value: string) => {
    const u = URL.parse(value);
    return u !== null && protocols.includes(u.protocol) && (!bare || (!u.username && !u.password && !u.search && !u.hash));
  };
  return text({ ...rest, message, checks: [[parses, message], ...checks], shown: redact });
}

/** `text` without the user and password of a URL in it (`https://***@host/`), as guarded-fetch's redactUrl. */
function hideUserinfo(text: string): string {
  const u = URL.parse(text);
  if (u === null) return text.replace(/\/\/[^/?#]*@/, '//***@');
  if (u.username !== '' || u.password !== '') [u.username, u.password] = ['***', ''];
  return u.href;
}

/** The entries of a comma-separated list, trimmed, without empty ones. */
const commaList = (value: string) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** Comma-separated entries, each accepted by `entry`. */
function list(options: Options & { entry: (entry: string) => boolean; message: string }) {
  const { entry, message, ...rest } = options;
  return setting({
    ...rest,
    message,
    checks: [[(value) => commaList(value).every(entry), message]],
    // The entries refused, each without user and password.
    shown: (value) =>
      commaList(value)
        .filter((e) => !entry(e))
        .map(hideUserinfo),
    decode: commaList,
  });
}

const HOST_ENTRY = /^(\*\.)?([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?(:\d{1,5})?$/i;
const IPV6_ENTRY = /^\[[0-9a-f:.]+\](:\d{1,5})?$/i;
/** FETCH_ALLOW_HOSTS: `host`, `host:port`, `*.example.com`, an IP address, `[v6]:port`. */
const isHostEntry = (host: string) => HOST_ENTRY.test(host) || IPV6_ENTRY.test(host) || (host.includes(':') && isIpLiteral(host));

/** A DNS_SERVERS entry: an IP address, `ipv4:port` or `[ipv6]:port`. */
function isDnsServer(entry: string): boolean {
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(entry);
  const withPort = /^([0-9.]+):(\d{1,5})$/.exec(entry);
  const [address, port] = bracketed ? [bracketed[1], bracketed[2]] : withPort ? [withPort[1], withPort[2]] : [entry, undefined];
  return isIP(address) !== 0 && (port === undefined || Number(port) <= 65535);
}

/** Names proxy-addr (Fastify's trustProxy) knows for address ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** A TRUST_PROXY entry: an address, a CIDR range or a range name. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** TRUST_PROXY: false, true (any case), or comma-separated addresses, CIDR ranges and range names. */
function trustProxy(options: Options) {
  const message =
    '{name}="{value}" must be false, true, or comma-separated addresses, CIDR ranges (10.0.0.0/8, ::1) and loopback, linklocal or uniquelocal';
  const isFlag = (value: string) => /^(true|false)$/i.test(value);
  return setting<boolean | string[]>({
    ...options,
    message,
    checks: [[(value) => isFlag(value) || (commaList(value).length > 0 && commaList(value).every(isProxyEntry)), message]],
    decode: (value) => (isFlag(value) ? value.toLowerCase() === 'true' : commaList(value)),
  });
}

// --- The environment ------------------------------------------------------------------------------

const S3 = { BLOB_STORE: 's3' };

/** FETCH_*: the policy of the guarded fetcher (src/lib/guarded-fetch.ts). */
export const FetchEnv = Type.Object({
  FETCH_ALLOW_PRIVATE: flag({
    default: 'false',
    description: 'Also fetch from loopback, private, link-local and reserved addresses (never cloud metadata).',
  }),
  FETCH_ALLOW_HOSTS: Type.Optional(
    list({
      entry: isHostEntry,
      message: '{name} entry "{value}" must be a host name, host:port or *.domain (no scheme or path)',
      description: 'Hosts fetched whatever they resolve to: host, host:port or *.example.com, comma-separated.',
    }),
  ),
  FETCH_TIMEOUT: duration({
    default: '10s',
    bare: 'ms',
    positive: true,
    description: 'Deadline of one whole fetch (DNS, connect, redirects, body); a bare number is milliseconds.',
  }),
  FETCH_MAX_BYTES: byteSize({ default: '10MiB', description: 'Largest response body a fetch accepts.' }),
  FETCH_MAX_REDIRECTS: count({ default: '5', min: 0, max: 999, description: 'Redirects a fetch follows; 0 refuses any redirect.' }),
});

/** Every environment variable the service reads, in the order of `.env.example`. */
export const EnvSchema = Type.Object({
  // HTTP API
  PORT: port({ default: '8080', description: 'TCP port the API listens on.' }),
  HOST: text({ default: '0.0.0.0', description: 'Interface the API binds to.' }),
  PUBLIC_URL: Type.Optional(
    url({ protocols: ['http:', 'https:'], description: 'Public base URL of the API, for absolute URLs; default http://localhost:$PORT.' }),
  ),
  AUTH_CACHE_TTL: duration({
    default: '5s',
    description: 'The most an API process keeps verified tokens and answers between writes (0: not at all).',
  }),
  RATE_LIMIT_MAX: count({
    default: '1000',
    min: 0,
    zero: 'no limit',
    max: 10_000_000,
    description: 'Requests one token (or client address) may make per window; 0 disables the limit.',
  }),
  RATE_LIMIT_WINDOW: duration({
    default: '1m',
    min: '1s',
    max: '1d',
    description: 'The window of RATE_LIMIT_MAX and RATE_LIMIT_AUTH_FAILURES.',
  }),
  RATE_LIMIT_READER_MAX: count({
    default: '100000',
    min: 0,
    zero: 'no limit',
    max: 100_000_000,
    description:
      "Requests one site lookup token or one site visitor's token may make per window (the site renderer's, on behalf of every reader); 0 disables this limit.",
  }),
  VISITOR_REVISION_GRACE: duration({
    default: '30s',
    min: '0s',
    max: '1m',
    description:
      "How long a site visitor's token still reads the revision its lookup answered with once the site publishes another (0: not at all).",
  }),
  RATE_LIMIT_AUTH_FAILURES: count({
    default: '100',
    min: 0,
    zero: 'no limit',
    max: 10_000_000,
    description: 'Failed authentications one client address may make per window; 0 turns this off.',
  }),
  OVERLOAD_EVENT_LOOP_DELAY: duration({
    default: '1s',
    min: '0s',
    max: '1m',
    description:
      'Mean event-loop delay (sampled four times per bound, at most each second) past which the API answers 503 with Retry-After and /readyz says it is not ready; 0 turns load shedding off.',
  }),
  PARSE_THREADS: count({
    default: '0',
    min: 0,
    zero: 'one per core',
    max: 256,
    description: 'Threads of the parsing pool per lane (interactive reads, jobs) in each process; 0: one per core.',
  }),
  BODY_LIMIT: byteSize({
    default: '10MiB',
    min: '1 KiB',
    max: '1 GiB',
    description: 'Largest request body; larger ones are answered 413.',
  }),
  TRUST_PROXY: trustProxy({
    default: 'false',
    description: 'Proxies whose X-Forwarded-For is believed: false, true, or addresses and ranges.',
  }),
  SEARCH_WINDOW: count({
    default: '2000',
    min: 1,
    max: 1_000_000,
    description: 'Matching sections a space search ranks besides title matches.',
  }),
  CACHE_MEMORY: byteSize({
    default: '32MiB',
    min: '1 MiB',
    max: '16 GiB',
    description: "Bytes one process's caches take together at most (revision documents apart).",
  }),
  // PostgreSQL
  DATABASE_URL: Type.Optional(
    url({
      protocols: ['postgres:', 'postgresql:'],
      description: "The service's database; unset: `npm start` runs an embedded PostgreSQL.",
    }),
  ),
  DATABASE_POOL_MAX: count({ default: '10', min: 1, max: 1000, description: 'Connections one process opens to PostgreSQL at most.' }),
  // Temporal
  TEMPORAL_ADDRESS: Type.Optional(
    text({
      pattern: '^[^\\s:/]+:\\d{1,5}$',
      message: '{name}="{value}" must be host:port, for example 127.0.0.1:7233',
      description: 'host:port of the Temporal frontend; unset: `npm start` runs a Temporal dev server.',
    }),
  ),
  TEMPORAL_NAMESPACE: text({ default: 'default', description: 'Temporal namespace of every workflow of the service.' }),
  TEMPORAL_TASK_QUEUE: text({ default: 'docs-service', description: 'Task queue the worker polls and the API starts workflows on.' }),
  WORKER_QUEUES: list({
    default: 'main,heavy',
    entry: (entry) => entry === 'main' || entry === 'heavy',
    message: '{name} entry "{value}" must be main or heavy',
    description:
      'Task queues a worker process polls: main (merges, Git Sync, deletions) and heavy (OpenAPI, imports, PDF, search indexing, Git Sync staging: TEMPORAL_TASK_QUEUE-heavy).',
  }),
  TEMPORAL_CLI_PATH: Type.Optional(text({ description: 'The `temporal` CLI of the dev server; unset: on PATH, then $GOPATH/bin.' })),
  GOPATH: Type.Optional(text({ description: 'Go workspace where `go install` puts the `temporal` CLI; unset: ~/go.' })),
  TEMPORAL_UI_PORT: port({ default: '8233', description: 'Port of the Web UI of the Temporal dev server `npm start` runs.' }),
  TEMPORAL_DEV_PORT: port({ default: '7233', description: 'Port of the Temporal dev server `npm start` runs.' }),
  EMBEDDED_POSTGRES_PORT: port({ default: '54329', description: 'Port of the embedded PostgreSQL `npm start` runs.' }),
  // Behaviour
  SPACE_RETENTION: duration({ default: '7d', positive: true, description: 'How long a deleted space stays restorable.' }),
  AUDIT_RETENTION: duration({
    default: '365d',
    positive: true,
    description: 'How long audit events are kept; older ones are no longer answered and are deleted as new events are recorded.',
  }),
  INSIGHTS_RETENTION: duration({
    default: '365d',
    positive: true,
    description: 'How long site insights events are kept; older ones are no longer answered and their monthly partitions are dropped.',
  }),
  DATA_DIR: text({ default: '.data', description: 'Directory of local state: embedded PostgreSQL, dev server, blobs, caches.' }),
  BLOB_DIR: Type.Optional(text({ description: 'Directory of the local blob store; default $DATA_DIR/blobs.' })),
  BLOB_GRACE: duration({
    default: '24h',
    positive: true,
    description:
      'How long a blob stays after its last write or its last reference went before it may be collected; longer than any job holds a hash it wrote without referencing it.',
  }),
  BLOB_COLLECT_EVERY: duration({
    default: '1h',
    min: '1s',
    zeroOff: true,
    description:
      'How often the blob-collection schedule deletes the blobs no row references any more; 0: workers leave the schedule as it is (none is created).',
  }),
  // Blob store
  BLOB_STORE: oneOf(['local', 's3'], { default: 'local', description: 'Where file bytes and PDFs live: local (BLOB_DIR) or s3.' }),
  S3_ENDPOINT: Type.Optional(
    url({
      onlyWhen: S3,
      protocols: ['http:', 'https:'],
      bare: true,
      message: '{name}="{value}" must be an http:// or https:// URL without credentials, for example http://127.0.0.1:9000',
      description: 'S3 endpoint URL; unset: AWS S3 of S3_REGION.',
    }),
  ),
  S3_BUCKET: Type.Optional(
    text({
      onlyWhen: S3,
      mandatory: true,
      pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$',
      message: '{name}="{value}" must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens',
      description: 'The bucket (it must exist).',
    }),
  ),
  S3_REGION: text({ onlyWhen: S3, default: 'us-east-1', description: 'Region of the bucket.' }),
  S3_ACCESS_KEY_ID: Type.Optional(
    text({ onlyWhen: S3, description: "Access key, with S3_SECRET_ACCESS_KEY; unset: the SDK's default chain." }),
  ),
  S3_SECRET_ACCESS_KEY: Type.Optional(
    text({
      onlyWhen: S3,
      together: 'S3_ACCESS_KEY_ID',
      message: 'S3_ACCESS_KEY_ID and {name} are set together (or both left unset for the default credential chain)',
      description: 'Secret key, with S3_ACCESS_KEY_ID.',
    }),
  ),
  S3_FORCE_PATH_STYLE: Type.Optional(
    flag({ onlyWhen: S3, description: 'Path-style URLs (endpoint/bucket/key); default true with S3_ENDPOINT, false without.' }),
  ),
  S3_DOWNLOADS: oneOf(['redirect', 'stream'], {
    onlyWhen: S3,
    default: 'redirect',
    description: 'Downloads: redirect to a presigned URL, or stream the bytes through the API.',
  }),
  SECRETS_KEY: Type.Optional(
    base64Key({ bytes: 32, description: 'Key (32 bytes, base64) encrypting stored secrets; unset: a key file under DATA_DIR.' }),
  ),
  SITES_URL: Type.Optional(
    url({
      protocols: ['http:', 'https:'],
      checks: [[(value) => !/[?#]/.test(value), '{name}="{value}" must not have a query or fragment']],
      description: 'Base URL of published sites without a custom hostname; default $PUBLIC_URL/sites.',
    }),
  ),
  SITE_PREVIEW_BASE_URL: Type.Optional(
    url({
      protocols: ['http:', 'https:'],
      checks: [[(value) => !/[?#]/.test(value), '{name}="{value}" must not have a query or fragment']],
      description:
        "Base URL of site previews (`{base}/{siteId}/…?token=`): the renderer's GITBOOK_PREVIEW_BASE_URL; default $PUBLIC_URL/preview.",
    }),
  ),
  CHROMIUM_PATH: absolutePath({
    default: '/usr/bin/chromium',
    example: '/usr/bin/chromium',
    description: 'The Chromium binary the worker prints PDFs with.',
  }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'Level of the JSON logs on stdout.',
  }),
  // Custom hostnames of sites
  CUSTOM_HOSTNAME_TARGET: Type.Optional(
    text({
      pattern: '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.?$',
      message: '{name}="{value}" must be a host name or an IPv4 address (lower case)',
      description: "What a site's custom hostname must point at (its CNAME, or the same addresses); default the host of SITES_URL.",
    }),
  ),
  DNS_SERVERS: Type.Optional(
    list({
      entry: isDnsServer,
      message: '{name} entry "{value}" must be an IP address, ip:port or [ipv6]:port',
      description: "DNS servers the custom hostname checks ask, comma-separated (ip, ip:port, [ipv6]:port); default the system's.",
    }),
  ),
  DNS_TIMEOUT: duration({
    default: '5s',
    min: '100ms',
    max: '60s',
    description: 'Deadline of one DNS check of a custom hostname (all its queries).',
  }),
  // Fetching URLs given by users
  ...FetchEnv.properties,
  // Integration scripts (src/lib/integration-sandbox.ts)
  INTEGRATION_TIMEOUT: duration({
    default: '10s',
    bare: 'ms',
    min: '100ms',
    max: '15m',
    description: "Wall-clock deadline of one event of an integration's script; past it the script's instance is stopped.",
  }),
  INTEGRATION_MEMORY_LIMIT: byteSize({
    default: '256MiB',
    min: '96 MiB',
    max: '16 GiB',
    description: "Resident memory of one integration script's instance (the runtime and the script together).",
  }),
  INTEGRATION_MAX_RESPONSE_BYTES: byteSize({
    default: '5MiB',
    max: '1 GiB',
    description: "Largest answer of one event of an integration's script.",
  }),
  INTEGRATION_POOL_SIZE: count({
    default: '8',
    min: 1,
    max: 1000,
    description: 'Integration script instances (one per integration version) one process keeps running at most.',
  }),
  INTEGRATION_ENDPOINT_CONCURRENCY: count({
    default: '32',
    min: 0,
    zero: 'no limit',
    max: 100_000,
    description:
      "Requests one integration's public endpoints, visitor sign-in and site scripts answer at once in one API process, whoever sends them; past it, 429 with Retry-After. 0 disables this limit.",
  }),
  INTEGRATION_API_UPSTREAM: Type.Optional(
    url({
      protocols: ['http:', 'https:'],
      bare: true,
      description: "Where requests of integration scripts to PUBLIC_URL are sent (the API's own address); default PUBLIC_URL.",
    }),
  ),
  INTEGRATION_EVENTS_SWEEP_EVERY: duration({
    default: '1m',
    min: '1s',
    zeroOff: true,
    description:
      'How often the integration-events sweep starts the delivery of events whose start was lost; 0: workers leave the schedule as it is (none is created).',
  }),
  OPENAPI_REFRESH_INTERVAL: duration({ default: '6h', min: '1m', description: 'How often URL-sourced OpenAPI specs are fetched again.' }),
  // Content import
  CONTENT_IMPORT_MAX_PAGES: count({ default: '100', min: 1, max: 10_000, description: 'Pages a website import fetches at most.' }),
  CONTENT_IMPORT_MAX_BYTES: byteSize({
    default: '50MiB',
    min: '1 KiB',
    max: '4 GiB',
    description: 'Largest download (zip, docx, wiki repository) of an import, and what an archive may unpack to.',
  }),
  CONTENT_IMPORT_MAX_FILES: count({ default: '5000', min: 1, max: 100_000, description: 'Files an archive or wiki repository may hold.' }),
  CONTENT_IMPORT_TIMEOUT: duration({
    default: '5m',
    min: '1s',
    description: "Deadline of an import's reading (download, clone, crawl, unpacking).",
  }),
  CONTENT_IMPORT_WAIT: duration({
    default: '60s',
    min: '0.1s',
    description: 'How long the API waits for an import before answering 503.',
  }),
  // Git Sync
  GIT_CACHE_DIR: Type.Optional(text({ description: 'Where the worker keeps its git repository caches; default $DATA_DIR/git-cache.' })),
  GIT_MAX_FILE_BYTES: byteSize({ default: '100MiB', description: 'Largest file a git import accepts.' }),
  GIT_MAX_MARKDOWN_FILES: count({
    default: '10000',
    min: 1,
    max: 10_000_000,
    description: 'Markdown files one git import reads at most (failure TOO_MANY_FILES).',
  }),
  GIT_MAX_MARKDOWN_FILE_BYTES: byteSize({
    default: '5MiB',
    description: 'Largest markdown file a git import reads (failure FILE_TOO_LARGE).',
  }),
  GIT_MAX_MARKDOWN_BYTES: byteSize({
    default: '64MiB',
    description: 'Bytes of markdown one git import reads in all (failure MARKDOWN_TOO_LARGE).',
  }),
  GIT_TIMEOUT: duration({ default: '10m', min: '1s', description: 'Deadline of one git command (fetch, push).' }),
  GIT_SYNC_RESEND_AFTER: duration({
    default: '30s',
    min: '100ms',
    description:
      'How long a recorded Git Sync request may go without reaching its workflow (the job service was down) before an API process sends it again; also how often each API process looks.',
  }),
});

export type FetchSettings = StaticDecode<typeof FetchEnv>;

type SettingSchema = TString & SettingKeywords & { default?: string };

/** `template` with `{name}` and `{value}` filled in (once: a value is never read as a template). */
const fill = (template: string, name: string, value: string) =>
  template.replace(/\{(name|value)\}/g, (_, key: string) => (key === 'name' ? name : value));

/**
 * Reads the settings of `schema` from `env`: the decoded values, and one problem per variable whose
 * value is refused, each naming the variable (and its value, unless secret). A refused value is
 * replaced by the default (or left unset), so the values are complete even with problems.
 */
export function readEnv<S extends TObject>(
  schema: S,
  env: Record<string, string | undefined>,
): { values: StaticDecode<S>; problems: string[] } {
  const settings = schema.properties as unknown as Record<string, SettingSchema>;
  const given: Record<string, string> = {};
  for (const name of Object.keys(settings)) {
    const value = env[name]?.trim();
    if (value) given[name] = value;
  }
  const applies = ({ onlyWhen = {} }: SettingSchema) =>
    Object.entries(onlyWhen).every(([other, value]) => (given[other] ?? settings[other]?.default) === value);
  for (const [name, setting] of Object.entries(settings)) if (!applies(setting)) delete given[name];
  const values = Value.Default(schema, given) as Record<string, string>;
  const problems: string[] = [];
  // Property by property: Value.Errors stops at a few errors, and there is one problem per variable.
  for (const [name, setting] of Object.entries(settings)) {
    const value = values[name];
    if (value === undefined && setting.mandatory && applies(setting)) {
      const when = Object.entries(setting.onlyWhen ?? {}).map(([other, value]) => `${other}=${value}`);
      problems.push(`${name} is required${when.length > 0 ? ` when ${when.join(' and ')}` : ''}`);
    }
    if (setting.together !== undefined && (value === undefined) !== (values[setting.together] === undefined)) {
      problems.push(fill(setting.errorMessage, name, ''));
    }
    if (value === undefined) continue;
    const [error] = Value.Errors(setting, value);
    if (error === undefined) continue;
    const template = error.keyword === '~refine' ? (error.params as { message: string }).message : setting.errorMessage;
    for (const shown of [setting.shown ? setting.shown(value) : value].flat()) problems.push(fill(template, name, shown));
    if (setting.default === undefined) delete values[name];
    else values[name] = setting.default;
  }
  return { values: Value.Decode(schema, values) as StaticDecode<S>, problems };
}
