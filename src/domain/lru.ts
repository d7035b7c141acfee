import { LRUCache } from 'lru-cache';

/**
 * A cache bounded by the bytes its entries take, as `sizeOf` estimates them (domain/sizeof.ts:
 * `entryBytes` counts the key, the value and the cache's own slot), not by their number: every
 * cache an API or worker process keeps for itself is one of these, so none grows with the data or
 * the traffic, whatever its entries weigh (docs/scaling.md lists them with their bounds). The least
 * recently used entries leave first; a value larger than the whole bound is not kept. `onDrop`
 * hears of each entry that leaves, whether evicted, replaced by another value, deleted or
 * cleared, for caches whose values hold something to release elsewhere (a schema compiled into an
 * Ajv instance).
 */
export class SizedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>> extends LRUCache<K, V> {
  constructor(maxBytes: number, sizeOf: (value: V, key: K) => number, onDrop?: (key: K, value: V) => void) {
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new Error(`A sized cache holds at least one byte (got ${maxBytes})`);
    super({
      maxSize: maxBytes,
      maxEntrySize: maxBytes,
      sizeCalculation: (value, key) => Math.max(1, Math.ceil(sizeOf(value, key))),
      ...(onDrop ? { dispose: (value: V, key: K) => onDrop(key, value) } : {}),
    });
  }
}

/**
 * CACHE_MEMORY's default: the bytes the caches of one process take together at most (each cache
 * has a fixed share of it; docs/scaling.md lists them). The documents of revisions are cached
 * apart (api/revisions/documents.ts, DOCUMENT_CACHE_BYTES).
 */
export const DEFAULT_CACHE_MEMORY = 32 * 2 ** 20;
let cacheMemory = DEFAULT_CACHE_MEMORY;

/**
 * Sets CACHE_MEMORY for this process: read by each cache when it is first used, so a process sets
 * it once at start, before it serves anything (buildApp does).
 */
export function setCacheMemory(bytes: number): void {
  if (!Number.isInteger(bytes) || bytes < 1) throw new Error(`CACHE_MEMORY must be a positive number of bytes (got ${bytes})`);
  cacheMemory = bytes;
}

/**
 * Each cache's share of CACHE_MEMORY, in one place so that together they stay within it. The two
 * whose entries grow with the content (links of documents, page indexes of revisions) have the
 * largest; the others hold small records (a token and what it stands for, a compiled schema).
 */
export const CACHE_SHARES = {
  /** Links parsed from documents, by document hash (api/links/service.ts). */
  documentLinks: 1 / 8,
  /** Page indexes of published revisions (db/sites.ts). */
  pageIndexes: 3 / 16,
  /** Sections and site-spaces of published sites (db/sites.ts). */
  siteStructures: 1 / 16,
  /** Members' answers of `GET /v1/spaces/{id}`, between writes, for AUTH_CACHE_TTL at most (api/spaces/service.ts). */
  spaceAnswers: 1 / 16,
  /** Site lookup tokens' answers of `POST /v1/urls/published`, likewise (api/urls/service.ts). */
  lookupAnswers: 1 / 16,
  /** Verified API tokens, for AUTH_CACHE_TTL (api/auth.ts). */
  apiTokens: 1 / 16,
  /** Failed authentications per client address (api/auth.ts). */
  authFailures: 1 / 32,
  /** Site visitors' tokens minted (api/site-tokens.ts). */
  mintedSiteTokens: 1 / 16,
  /** Site visitors' tokens whose signature checked out (api/site-tokens.ts). */
  verifiedSiteTokens: 1 / 32,
  /** What site visitors' tokens must still hold, by site and share link, for AUTH_CACHE_TTL (api/site-tokens.ts). */
  siteTokenStates: 1 / 64,
  /** Structures of published sites as readers read them, by structure version (api/sites/structure.ts). */
  readerStructures: 1 / 32,
  /** Code blocks that integrations installed on a space claim as their blocks, by space, likewise (api/revisions/documents.ts). */
  spaceCodeblocks: 1 / 128,
  /** What storing a site's insights events needs of it (its visibility, the installations hearing readers' events), likewise (api/sites/insights/service.ts). */
  siteTracking: 1 / 128,
  /** Published sites as their visitors read them, serialized, between writes, for AUTH_CACHE_TTL at most (api/sites/publishing.ts). */
  publishedSites: 1 / 32,
  /** Revisions as site visitors read them, served without reading the revision row, likewise (api/revisions/service.ts). */
  visitorRevisions: 1 / 16,
  /** Counts of listings of more than 10,000 items (api/pagination.ts). */
  largeCounts: 1 / 128,
  /** Compiled configuration schemas of integrations (domain/integrations.ts). */
  integrationSchemas: 7 / 128,
  /** Compiled claim schemas of adaptive content (domain/sites/adaptive.ts). */
  claimsSchemas: 1 / 16,
  /** Parsed expressions, and outcomes of conditions by expression and claims (domain/expressions.ts). */
  conditions: 1 / 32,
} as const;
export type CacheName = keyof typeof CACHE_SHARES;

/** The bytes the cache `name` may hold under the current CACHE_MEMORY. */
export const cacheBytes = (name: CacheName) => Math.max(1, Math.floor(cacheMemory * CACHE_SHARES[name]));

/** The cache `name`, holding at most its share of CACHE_MEMORY, made at its first use. */
export function sharedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  name: CacheName,
  sizeOf: (value: V, key: K) => number,
  onDrop?: (key: K, value: V) => void,
): () => SizedLru<K, V> {
  let cache: SizedLru<K, V> | undefined;
  return () => (cache ??= new SizedLru<K, V>(cacheBytes(name), sizeOf, onDrop));
}
