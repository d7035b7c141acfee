import { isIP } from 'node:net';
import { isAbsolute } from 'node:path';
import { parseDuration } from './domain/duration.ts';
import { parseFetchPolicy, type FetchPolicy } from './lib/guarded-fetch.ts';

export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  /** Unset: `npm start` runs an embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  /** Connections one process opens to PostgreSQL at most (DATABASE_POOL_MAX, default 10). */
  databasePoolMax: number;
  /** Unset: `npm start` runs a Temporal dev server. */
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalTaskQueue: string;
  temporalCliPath: string | undefined;
  /** Go's workspace (GOPATH), where `go install` puts the `temporal` CLI; unset: `~/go`. */
  goPath: string | undefined;
  temporalUiPort: number;
  /** Port of the Temporal dev server `npm start` runs when TEMPORAL_ADDRESS is unset. */
  temporalDevPort: number;
  /** Port of the embedded PostgreSQL `npm start` runs when DATABASE_URL is unset. */
  embeddedPostgresPort: number;
  spaceRetentionMs: number;
  dataDir: string;
  /** Directory of the local blob store (file bytes by sha256); default `blobs` under DATA_DIR. */
  blobDir: string;
  /** Set when BLOB_STORE=s3: file bytes and PDFs live in an S3-compatible bucket instead of blobDir. */
  s3: S3Config | undefined;
  logLevel: string;
  /** How long a verified API token is remembered by an API process; revocation takes effect within it. */
  authCacheTtlMs: number;
  /** Key (32 bytes, base64) encrypting stored secrets such as integration secrets; unset: a key file under DATA_DIR. */
  secretsKey: string | undefined;
  /** How often URL-sourced OpenAPI specs are fetched again. */
  openapiRefreshIntervalMs: number;
  /** The Chromium binary the worker prints PDFs with (an absolute path). */
  chromiumPath: string;
  /** What the guarded fetcher may reach and how much it reads (FETCH_*). */
  fetch: FetchPolicy;
  /** Content import (`POST …/content/import`): limits of what one import reads, and how long the API waits for it. */
  contentImport: ContentImportConfig;
  /** Base URL of published sites without a custom hostname: `{sitesUrl}/{organizationId}/{basename or siteId}/…`. */
  sitesUrl: string;
  /** Where the worker keeps its git repository caches (one per repoCacheID); default `git-cache` under DATA_DIR. */
  gitCacheDir: string;
  /** Largest file a git import accepts (GIT_MAX_FILE_BYTES, e.g. 100MiB). */
  gitMaxFileBytes: number;
  /** Deadline of one git command (GIT_TIMEOUT). */
  gitTimeoutMs: number;
  /** Requests one token (or, without a token, one IP address) may make per window (RATE_LIMIT_*); max 0 disables. */
  rateLimit: RateLimitConfig;
  /** Largest request body in bytes (BODY_LIMIT, default 10 MiB); larger ones are answered 413. */
  bodyLimit: number;
  /** Matching sections a space search ranks besides title matches (SEARCH_WINDOW, default 2000). */
  searchWindow: number;
  /**
   * Which proxies in front of the API are believed about the client address (X-Forwarded-For), as
   * Fastify's `trustProxy` takes it: false (none, the default), true (any peer), or addresses, CIDR
   * ranges and range names. It decides the address that requests without a token are rate-limited by.
   */
  trustProxy: boolean | string[];
}

export interface RateLimitConfig {
  /** Requests per window (RATE_LIMIT_MAX, default 1000); 0 disables the limit. */
  max: number;
  /** The window (RATE_LIMIT_WINDOW, default 1m). */
  windowMs: number;
  /**
   * Failed authentications one client address may make per window before it is answered 429
   * (RATE_LIMIT_AUTH_FAILURES, default 100); 0 turns this off. Off, too, when RATE_LIMIT_MAX is 0.
   */
  authFailures: number;
}

/** An S3-compatible object store (BLOB_STORE=s3, S3_*). */
export interface S3Config {
  /** Endpoint URL (S3_ENDPOINT); unset: AWS S3 of the region. */
  endpoint: string | undefined;
  bucket: string;
  region: string;
  /** Unset (both): the SDK's default credential chain (instance role, AWS_* variables, …). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** `http://endpoint/bucket/key` instead of `http://bucket.endpoint/key` (MinIO and most self-hosted stores). */
  forcePathStyle: boolean;
  /** Downloads: `redirect` to a presigned URL of the bucket, or `stream` the bytes through the API. */
  downloads: 'redirect' | 'stream';
}

export interface ContentImportConfig {
  /** Pages a website import fetches at most (CONTENT_IMPORT_MAX_PAGES, default 100). */
  maxPages: number;
  /** Largest download (zip, docx, wiki repository) in bytes (CONTENT_IMPORT_MAX_BYTES, default 50 MiB). */
  maxBytes: number;
  /** Files an archive or repository may hold (CONTENT_IMPORT_MAX_FILES, default 5000). */
  maxFiles: number;
  /** Deadline of one import's reading (CONTENT_IMPORT_TIMEOUT, default 5m). */
  timeoutMs: number;
  /** How long the API waits for an import before answering 503 (CONTENT_IMPORT_WAIT, default 60s). */
  waitMs: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the environment; every bad value is reported at once, each with its variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const str = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : v;
  };
  const optional = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const port = (name: string, fallback: number) => {
    const raw = str(name, String(fallback));
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) {
      problems.push(`${name}="${raw}" must be a port number between 0 and 65535`);
      return fallback;
    }
    return n;
  };
  const url = (name: string, value: string | undefined, protocols: string[]) => {
    if (value === undefined) return undefined;
    try {
      const u = new URL(value);
      if (!protocols.includes(u.protocol)) throw new Error();
      return value;
    } catch {
      problems.push(`${name}="${redact(value)}" must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
      return undefined;
    }
  };

  const portValue = port('PORT', 8080);
  const publicUrl = url('PUBLIC_URL', str('PUBLIC_URL', `http://localhost:${portValue}`), ['http:', 'https:']);
  const databaseUrl = url('DATABASE_URL', optional('DATABASE_URL'), ['postgres:', 'postgresql:']);
  const databasePoolMax = wholeNumber(env, 'DATABASE_POOL_MAX', 10, 1000, problems);
  const temporalAddress = optional('TEMPORAL_ADDRESS');
  if (temporalAddress !== undefined && !/^[^\s:/]+:\d{1,5}$/.test(temporalAddress)) {
    problems.push(`TEMPORAL_ADDRESS="${temporalAddress}" must be host:port, for example 127.0.0.1:7233`);
  }
  let spaceRetentionMs = 7 * 86_400_000;
  try {
    spaceRetentionMs = parseDuration(str('SPACE_RETENTION', '7d'));
    if (spaceRetentionMs <= 0) problems.push('SPACE_RETENTION must be longer than zero');
  } catch (e) {
    problems.push(`SPACE_RETENTION: ${(e as Error).message}`);
  }
  let authCacheTtlMs = 5000;
  try {
    authCacheTtlMs = parseDuration(str('AUTH_CACHE_TTL', '5s'));
  } catch (e) {
    problems.push(`AUTH_CACHE_TTL: ${(e as Error).message}`);
  }
  const secretsKey = optional('SECRETS_KEY');
  if (secretsKey !== undefined && Buffer.from(secretsKey, 'base64').length !== 32) {
    problems.push('SECRETS_KEY must be 32 bytes encoded in base64 (for example: openssl rand -base64 32)');
  }
  let openapiRefreshIntervalMs = 6 * 3_600_000;
  try {
    openapiRefreshIntervalMs = parseDuration(str('OPENAPI_REFRESH_INTERVAL', '6h'));
    if (openapiRefreshIntervalMs < 60_000) problems.push('OPENAPI_REFRESH_INTERVAL must be at least 1m');
  } catch (e) {
    problems.push(`OPENAPI_REFRESH_INTERVAL: ${(e as Error).message}`);
  }
  const contentImport = contentImportConfig(env, problems);
  const sitesUrl = url('SITES_URL', optional('SITES_URL'), ['http:', 'https:']);
  if (sitesUrl !== undefined && /[?#]/.test(sitesUrl)) problems.push(`SITES_URL="${sitesUrl}" must not have a query or fragment`);
  let gitTimeoutMs = 10 * 60_000;
  try {
    gitTimeoutMs = parseDuration(str('GIT_TIMEOUT', '10m'));
    if (gitTimeoutMs < 1000) problems.push('GIT_TIMEOUT must be at least 1s');
  } catch (e) {
    problems.push(`GIT_TIMEOUT: ${(e as Error).message}`);
  }
  let gitMaxFileBytes = 100 * 1024 * 1024;
  const rawMaxFile = optional('GIT_MAX_FILE_BYTES');
  if (rawMaxFile !== undefined) {
    const match = /^(\d+)\s*(b|kib|mib|gib)?$/i.exec(rawMaxFile.trim());
    const unit = { b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }[(match?.[2] ?? 'b').toLowerCase() as 'b'];
    if (!match || Number(match[1]) * unit <= 0)
      problems.push(`GIT_MAX_FILE_BYTES="${rawMaxFile}" must be a positive number of bytes, optionally with KiB, MiB or GiB`);
    else gitMaxFileBytes = Number(match[1]) * unit;
  }
  const logLevel = str('LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL="${logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);
  const chromiumPath = str('CHROMIUM_PATH', '/usr/bin/chromium');
  if (!isAbsolute(chromiumPath)) problems.push(`CHROMIUM_PATH="${chromiumPath}" must be an absolute path, for example /usr/bin/chromium`);
  const fetch = parseFetchPolicy(env);
  problems.push(...fetch.problems);
  const rateLimit = rateLimitConfig(env, problems);
  let bodyLimit = 10 * 1024 * 1024;
  const rawBodyLimit = optional('BODY_LIMIT')?.trim();
  if (rawBodyLimit !== undefined) {
    const bytes = parseByteSize(rawBodyLimit);
    if (bytes === undefined || bytes < 1024 || bytes > 1024 ** 3) {
      problems.push(`BODY_LIMIT="${rawBodyLimit}" must be between 1 KiB and 1 GiB: bytes, or a number with KiB, MiB or GiB`);
    } else {
      bodyLimit = bytes;
    }
  }
  const s3 = s3Config(env, problems);
  const searchWindow = wholeNumber(env, 'SEARCH_WINDOW', 2000, 1_000_000, problems);
  const trustProxy = trustProxyConfig(optional('TRUST_PROXY')?.trim(), problems);

  const config: Config = {
    host: str('HOST', '0.0.0.0'),
    port: portValue,
    publicUrl: (publicUrl ?? `http://localhost:${portValue}`).replace(/\/+$/, ''),
    databaseUrl,
    databasePoolMax,
    temporalAddress,
    temporalNamespace: str('TEMPORAL_NAMESPACE', 'default'),
    temporalTaskQueue: str('TEMPORAL_TASK_QUEUE', 'docs-service'),
    temporalCliPath: optional('TEMPORAL_CLI_PATH'),
    goPath: optional('GOPATH'),
    temporalUiPort: port('TEMPORAL_UI_PORT', 8233),
    temporalDevPort: port('TEMPORAL_DEV_PORT', 7233),
    embeddedPostgresPort: port('EMBEDDED_POSTGRES_PORT', 54329),
    spaceRetentionMs,
    dataDir: str('DATA_DIR', '.data'),
    blobDir: str('BLOB_DIR', `${str('DATA_DIR', '.data')}/blobs`),
    s3,
    logLevel,
    authCacheTtlMs,
    secretsKey,
    openapiRefreshIntervalMs,
    chromiumPath,
    fetch: fetch.policy,
    contentImport,
    rateLimit,
    bodyLimit,
    searchWindow,
    trustProxy,
    sitesUrl: (sitesUrl ?? `${(publicUrl ?? `http://localhost:${portValue}`).replace(/\/+$/, '')}/sites`).replace(/\/+$/, ''),
    gitCacheDir: str('GIT_CACHE_DIR', `${str('DATA_DIR', '.data')}/git-cache`),
    gitMaxFileBytes,
    gitTimeoutMs,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** `123`, `123b`, `64KiB`, `10 MiB`, `1GiB` as bytes; undefined when it is none of these. */
function parseByteSize(raw: string): number | undefined {
  const match = /^(\d+)\s*(|b|kib|mib|gib)$/i.exec(raw);
  if (!match) return undefined;
  return Number(match[1]) * { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }[match[2].toLowerCase()]!;
}

/** Names proxy-addr (Fastify's trustProxy) knows for address ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: `false`, `true`, or comma-separated addresses, CIDR ranges and range names. */
function trustProxyConfig(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => {
    if (PROXY_RANGE_NAMES.includes(entry)) return false;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return true;
    return prefix !== undefined && (!/^\d+$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128));
  });
  if (bad.length > 0 || entries.length === 0) {
    problems.push(
      `TRUST_PROXY="${raw}" must be false, true, or comma-separated addresses, CIDR ranges (10.0.0.0/8, ::1) and loopback, linklocal or uniquelocal`,
    );
    return false;
  }
  return entries;
}

/** RATE_LIMIT_MAX and RATE_LIMIT_WINDOW; problems are added to `problems`. */
function rateLimitConfig(env: NodeJS.ProcessEnv, problems: string[]): RateLimitConfig {
  const read = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]!.trim());
  let max = 1000;
  const rawMax = read('RATE_LIMIT_MAX');
  if (rawMax !== undefined) {
    if (!/^\d+$/.test(rawMax) || Number(rawMax) > 10_000_000) {
      problems.push(`RATE_LIMIT_MAX="${rawMax}" must be a whole number from 0 (no limit) to 10000000`);
    } else {
      max = Number(rawMax);
    }
  }
  let windowMs = 60_000;
  const rawWindow = read('RATE_LIMIT_WINDOW');
  if (rawWindow !== undefined) {
    try {
      windowMs = parseDuration(rawWindow);
      if (windowMs < 1000 || windowMs > 86_400_000) {
        problems.push(`RATE_LIMIT_WINDOW="${rawWindow}" must be from 1s to 1d`);
        windowMs = 60_000;
      }
    } catch (e) {
      problems.push(`RATE_LIMIT_WINDOW: ${(e as Error).message}`);
    }
  }
  let authFailures = 100;
  const rawFailures = read('RATE_LIMIT_AUTH_FAILURES');
  if (rawFailures !== undefined) {
    if (!/^\d+$/.test(rawFailures) || Number(rawFailures) > 10_000_000) {
      problems.push(`RATE_LIMIT_AUTH_FAILURES="${rawFailures}" must be a whole number from 0 (no limit) to 10000000`);
    } else {
      authFailures = Number(rawFailures);
    }
  }
  return { max, windowMs, authFailures: max === 0 ? 0 : authFailures };
}

/** BLOB_STORE and S3_* settings: undefined for the local store; problems are added to `problems`. Secrets are never quoted. */
function s3Config(env: NodeJS.ProcessEnv, problems: string[]): S3Config | undefined {
  const read = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]!.trim());
  const kind = read('BLOB_STORE') ?? 'local';
  if (kind !== 'local' && kind !== 's3') {
    problems.push(`BLOB_STORE="${kind}" must be local or s3`);
    return undefined;
  }
  if (kind === 'local') return undefined;
  const endpoint = read('S3_ENDPOINT');
  if (endpoint !== undefined) {
    let ok: boolean;
    try {
      const u = new URL(endpoint);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password && !u.search && !u.hash;
    } catch {
      ok = false;
    }
    if (!ok)
      problems.push(
        `S3_ENDPOINT="${redact(endpoint)}" must be an http:// or https:// URL without credentials, for example http://127.0.0.1:9000`,
      );
  }
  const bucket = read('S3_BUCKET');
  if (bucket === undefined) problems.push('S3_BUCKET is required when BLOB_STORE=s3');
  else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(`S3_BUCKET="${bucket}" must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens`);
  }
  const accessKeyId = read('S3_ACCESS_KEY_ID');
  const secretAccessKey = read('S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or both left unset for the default credential chain)');
  }
  const forcePathStyleRaw = (read('S3_FORCE_PATH_STYLE') ?? (endpoint !== undefined ? 'true' : 'false')).toLowerCase();
  if (!['true', 'false', '1', '0'].includes(forcePathStyleRaw))
    problems.push(`S3_FORCE_PATH_STYLE="${forcePathStyleRaw}" must be true or false`);
  const downloads = read('S3_DOWNLOADS') ?? 'redirect';
  if (downloads !== 'redirect' && downloads !== 'stream') problems.push(`S3_DOWNLOADS="${downloads}" must be redirect or stream`);
  return {
    endpoint,
    bucket: bucket ?? '',
    region: read('S3_REGION') ?? 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: forcePathStyleRaw === 'true' || forcePathStyleRaw === '1',
    downloads: downloads === 'stream' ? 'stream' : 'redirect',
  };
}

/** A whole number from 1 to `max` in `name` (`fallback` when unset or empty); a problem is added otherwise. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    problems.push(`${name}="${raw}" must be a whole number from 1 to ${max}`);
    return fallback;
  }
  return Number(raw);
}

/** CONTENT_IMPORT_* settings; problems are added to `problems`. */
function contentImportConfig(env: NodeJS.ProcessEnv, problems: string[]): ContentImportConfig {
  const read = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]!.trim());
  const count = (name: string, fallback: number, max: number) => wholeNumber(env, name, fallback, max, problems);
  const duration = (name: string, fallback: string, min: number) => {
    const raw = read(name) ?? fallback;
    try {
      const ms = parseDuration(raw);
      if (ms < min) problems.push(`${name}="${raw}" must be at least ${min / 1000}s`);
      return ms;
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
      return parseDuration(fallback);
    }
  };
  let maxBytes = 50 * 1024 * 1024;
  const rawBytes = read('CONTENT_IMPORT_MAX_BYTES');
  if (rawBytes !== undefined) {
    const match = /^(\d+)\s*(|b|kib|mib|gib)$/i.exec(rawBytes);
    const unit = match ? { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }[match[2].toLowerCase()]! : 0;
    if (!match || Number(match[1]) * unit < 1024 || Number(match[1]) * unit > 4 * 1024 ** 3) {
      problems.push(`CONTENT_IMPORT_MAX_BYTES="${rawBytes}" must be between 1 KiB and 4 GiB: bytes, or a number with KiB, MiB or GiB`);
    } else {
      maxBytes = Number(match[1]) * unit;
    }
  }
  return {
    maxPages: count('CONTENT_IMPORT_MAX_PAGES', 100, 10_000),
    maxBytes,
    maxFiles: count('CONTENT_IMPORT_MAX_FILES', 5000, 100_000),
    timeoutMs: duration('CONTENT_IMPORT_TIMEOUT', '5m', 1000),
    waitMs: duration('CONTENT_IMPORT_WAIT', '60s', 100),
  };
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
 * The configuration of a process entry point: an invalid one is printed and the process exits 2.
 * `requireExternal` names the command that needs DATABASE_URL and TEMPORAL_ADDRESS to be set.
 */
export function configForProcess(requireExternal?: string): Config {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(2);
  }
  if (requireExternal && (!config.databaseUrl || !config.temporalAddress)) {
    console.error(`${requireExternal} needs DATABASE_URL and TEMPORAL_ADDRESS; \`npm start\` runs everything with embedded defaults.`);
    process.exit(2);
  }
  return config;
}
