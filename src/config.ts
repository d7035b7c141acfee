import { EnvSchema, readEnv } from './config/schema.ts';
import { parseFetchPolicy, type FetchPolicy } from './lib/guarded-fetch.ts';
import { heavyTaskQueue, type WorkerQueue } from './domain/task-queues.ts';

export { redact } from './config/schema.ts';

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
  /** Where heavy jobs run: TEMPORAL_TASK_QUEUE with `-heavy` (src/domain/task-queues.ts). */
  temporalHeavyTaskQueue: string;
  /** The queues a worker process polls (WORKER_QUEUES). */
  workerQueues: WorkerQueue[];
  temporalCliPath: string | undefined;
  /** Go's workspace (GOPATH), where `go install` puts the `temporal` CLI; unset: `~/go`. */
  goPath: string | undefined;
  temporalUiPort: number;
  /** Port of the Temporal dev server `npm start` runs when TEMPORAL_ADDRESS is unset. */
  temporalDevPort: number;
  /** Port of the embedded PostgreSQL `npm start` runs when DATABASE_URL is unset. */
  embeddedPostgresPort: number;
  /** How long audit events are kept (AUDIT_RETENTION, default 365 days). */
  auditRetentionMs: number;
  /** How long site insights events are kept (INSIGHTS_RETENTION, default 365 days). */
  insightsRetentionMs: number;
  spaceRetentionMs: number;
  dataDir: string;
  /** Directory of the local blob store (file bytes by sha256); default `blobs` under DATA_DIR. */
  blobDir: string;
  /** Set when BLOB_STORE=s3: file bytes and PDFs live in an S3-compatible bucket instead of blobDir. */
  s3: S3Config | undefined;
  /** How long a blob stays after its last write or its last reference went (BLOB_GRACE, default 24h; docs/operations.md, "Deleting blobs"). */
  blobGraceMs: number;
  /** How often the blob-collection schedule runs (BLOB_COLLECT_EVERY, default 1h). */
  blobCollectEveryMs: number;
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
  /** Integration scripts (INTEGRATION_*): the limits of one event, the pool of instances, where their API requests go. */
  integrations: IntegrationsConfig;
  /** Content import (`POST …/content/import`): limits of what one import reads, and how long the API waits for it. */
  contentImport: ContentImportConfig;
  /** Base URL of published sites without a custom hostname: `{sitesUrl}/{organizationId}/{basename or siteId}/…`. */
  sitesUrl: string;
  /** Base URL of site previews (SITE_PREVIEW_BASE_URL): `{sitePreviewUrl}/{siteId}/…?token=`, what the renderer calls GITBOOK_PREVIEW_BASE_URL. */
  sitePreviewUrl: string;
  /** DNS checks of sites' custom hostnames: what they must point at, the DNS servers asked (empty: the system's) and the deadline. */
  customHostnames: { target: string; dnsServers: string[]; dnsTimeoutMs: number };
  /** Where the worker keeps its git repository caches (one per repoCacheID); default `git-cache` under DATA_DIR. */
  gitCacheDir: string;
  /** Largest file a git import accepts (GIT_MAX_FILE_BYTES, e.g. 100MiB). */
  gitMaxFileBytes: number;
  /** What one git import reads of markdown (GIT_MAX_MARKDOWN_*): files, bytes of one file, bytes in all. */
  gitMarkdown: { maxFiles: number; maxFileBytes: number; maxTotalBytes: number };
  /** Deadline of one git command (GIT_TIMEOUT). */
  gitTimeoutMs: number;
  /** How long a recorded Git Sync request may go without reaching its workflow before it is sent again (GIT_SYNC_RESEND_AFTER). */
  gitSyncResendAfterMs: number;
  /** Requests one token (or, without a token, one IP address) may make per window (RATE_LIMIT_*); max 0 disables. */
  rateLimit: RateLimitConfig;
  /**
   * How long a visitor's token still reads the revision its lookup answered with once its space
   * has moved on to another (VISITOR_REVISION_GRACE, ms): a page being read then still loads, and
   * content removed from the site stops being readable after that (plus AUTH_CACHE_TTL).
   */
  visitorRevisionGraceMs: number;
  /** Mean event-loop delay in ms past which the API sheds load with 503s (OVERLOAD_EVENT_LOOP_DELAY); 0: never. */
  overloadEventLoopDelayMs: number;
  /** Threads of the parsing pool per lane (PARSE_THREADS); 0: one per core. */
  parseThreads: number;
  /** Largest request body in bytes (BODY_LIMIT, default 10 MiB); larger ones are answered 413. */
  bodyLimit: number;
  /** Matching sections a space search ranks besides title matches (SEARCH_WINDOW, default 2000). */
  searchWindow: number;
  /** Bytes the caches of one process take together at most (CACHE_MEMORY; shares in domain/lru.ts). */
  cacheMemory: number;
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
  /**
   * Requests per window of one site lookup token or site visitor's token (RATE_LIMIT_READER_MAX,
   * default 100,000): the site renderer makes them for all of a site's readers; 0: no limit.
   */
  readerMax: number;
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

export interface IntegrationsConfig {
  /** Wall-clock deadline of one event (INTEGRATION_TIMEOUT, default 10s). */
  timeoutMs: number;
  /** Resident memory of one script's instance (INTEGRATION_MEMORY_LIMIT, default 256 MiB). */
  memoryLimitBytes: number;
  /** Largest answer of one event (INTEGRATION_MAX_RESPONSE_BYTES, default 5 MiB). */
  maxResponseBytes: number;
  /** Instances one process keeps at most (INTEGRATION_POOL_SIZE, default 8). */
  poolSize: number;
  /** Where scripts' requests to PUBLIC_URL are sent (INTEGRATION_API_UPSTREAM, default PUBLIC_URL). */
  apiUpstream: string;
  /** Requests one integration's public endpoints answer at once in one process (INTEGRATION_ENDPOINT_CONCURRENCY, default 32; 0: no limit). */
  endpointConcurrency: number;
  /** How often the integration-events sweep runs (INTEGRATION_EVENTS_SWEEP_EVERY, default 1m; 0: no schedule). */
  eventsSweepEveryMs: number;
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

/**
 * Reads and validates the environment against its schema (src/config/schema.ts); every bad value is
 * reported at once, each with its variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { values: v, problems } = readEnv(EnvSchema, env);
  const publicUrl = (v.PUBLIC_URL ?? `http://localhost:${v.PORT}`).replace(/\/+$/, '');
  const config: Config = {
    host: v.HOST,
    port: v.PORT,
    publicUrl,
    databaseUrl: v.DATABASE_URL,
    databasePoolMax: v.DATABASE_POOL_MAX,
    temporalAddress: v.TEMPORAL_ADDRESS,
    temporalNamespace: v.TEMPORAL_NAMESPACE,
    temporalTaskQueue: v.TEMPORAL_TASK_QUEUE,
    temporalHeavyTaskQueue: heavyTaskQueue(v.TEMPORAL_TASK_QUEUE),
    workerQueues: [...new Set(v.WORKER_QUEUES.filter((queue): queue is WorkerQueue => queue === 'main' || queue === 'heavy'))],
    temporalCliPath: v.TEMPORAL_CLI_PATH,
    goPath: v.GOPATH,
    temporalUiPort: v.TEMPORAL_UI_PORT,
    temporalDevPort: v.TEMPORAL_DEV_PORT,
    embeddedPostgresPort: v.EMBEDDED_POSTGRES_PORT,
    spaceRetentionMs: v.SPACE_RETENTION,
    auditRetentionMs: v.AUDIT_RETENTION,
    insightsRetentionMs: v.INSIGHTS_RETENTION,
    dataDir: v.DATA_DIR,
    blobDir: v.BLOB_DIR ?? `${v.DATA_DIR}/blobs`,
    blobGraceMs: v.BLOB_GRACE,
    blobCollectEveryMs: v.BLOB_COLLECT_EVERY,
    s3:
      v.BLOB_STORE === 's3'
        ? {
            endpoint: v.S3_ENDPOINT,
            bucket: v.S3_BUCKET ?? '',
            region: v.S3_REGION,
            accessKeyId: v.S3_ACCESS_KEY_ID,
            secretAccessKey: v.S3_SECRET_ACCESS_KEY,
            forcePathStyle: v.S3_FORCE_PATH_STYLE ?? v.S3_ENDPOINT !== undefined,
            downloads: v.S3_DOWNLOADS,
          }
        : undefined,
    logLevel: v.LOG_LEVEL,
    authCacheTtlMs: v.AUTH_CACHE_TTL,
    secretsKey: v.SECRETS_KEY,
    openapiRefreshIntervalMs: v.OPENAPI_REFRESH_INTERVAL,
    chromiumPath: v.CHROMIUM_PATH,
    fetch: parseFetchPolicy(v),
    integrations: {
      timeoutMs: v.INTEGRATION_TIMEOUT,
      memoryLimitBytes: v.INTEGRATION_MEMORY_LIMIT,
      maxResponseBytes: v.INTEGRATION_MAX_RESPONSE_BYTES,
      poolSize: v.INTEGRATION_POOL_SIZE,
      apiUpstream: (v.INTEGRATION_API_UPSTREAM ?? publicUrl).replace(/\/+$/, ''),
      endpointConcurrency: v.INTEGRATION_ENDPOINT_CONCURRENCY,
      eventsSweepEveryMs: v.INTEGRATION_EVENTS_SWEEP_EVERY,
    },
    contentImport: {
      maxPages: v.CONTENT_IMPORT_MAX_PAGES,
      maxBytes: v.CONTENT_IMPORT_MAX_BYTES,
      maxFiles: v.CONTENT_IMPORT_MAX_FILES,
      timeoutMs: v.CONTENT_IMPORT_TIMEOUT,
      waitMs: v.CONTENT_IMPORT_WAIT,
    },
    sitesUrl: (v.SITES_URL ?? `${publicUrl}/sites`).replace(/\/+$/, ''),
    sitePreviewUrl: (v.SITE_PREVIEW_BASE_URL ?? `${publicUrl}/preview`).replace(/\/+$/, ''),
    customHostnames: {
      target: v.CUSTOM_HOSTNAME_TARGET ?? new URL(v.SITES_URL ?? publicUrl).hostname.replace(/^\[(.*)\]$/, '$1'),
      dnsServers: v.DNS_SERVERS ?? [],
      dnsTimeoutMs: v.DNS_TIMEOUT,
    },
    gitCacheDir: v.GIT_CACHE_DIR ?? `${v.DATA_DIR}/git-cache`,
    gitMaxFileBytes: v.GIT_MAX_FILE_BYTES,
    gitMarkdown: {
      maxFiles: v.GIT_MAX_MARKDOWN_FILES,
      maxFileBytes: v.GIT_MAX_MARKDOWN_FILE_BYTES,
      maxTotalBytes: v.GIT_MAX_MARKDOWN_BYTES,
    },
    gitTimeoutMs: v.GIT_TIMEOUT,
    gitSyncResendAfterMs: v.GIT_SYNC_RESEND_AFTER,
    rateLimit: {
      max: v.RATE_LIMIT_MAX,
      readerMax: v.RATE_LIMIT_READER_MAX,
      windowMs: v.RATE_LIMIT_WINDOW,
      // No rate limit at all turns the failed-authentication limit off too.
      authFailures: v.RATE_LIMIT_MAX === 0 ? 0 : v.RATE_LIMIT_AUTH_FAILURES,
    },
    visitorRevisionGraceMs: v.VISITOR_REVISION_GRACE,
    overloadEventLoopDelayMs: v.OVERLOAD_EVENT_LOOP_DELAY,
    parseThreads: v.PARSE_THREADS,
    bodyLimit: v.BODY_LIMIT,
    searchWindow: v.SEARCH_WINDOW,
    cacheMemory: v.CACHE_MEMORY,
    trustProxy: v.TRUST_PROXY,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
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
