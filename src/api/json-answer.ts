import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadCache } from '../domain/read-cache.ts';
import { JSON_TYPE } from './schemas.ts';

const gzipAsync = promisify(gzip);

/** Below this many bytes an answer goes out as it is: compressing it would save less than it costs. */
const GZIP_MIN_BYTES = 2048;

/**
 * An answer serialized once and sent as it is many times: the JSON of content that never changes
 * (a revision, a page's document), encoded to UTF-8 once and, for clients that accept it (GitBook's
 * renderer does, as any `fetch` does), compressed once. Services keep these in their caches; routes
 * send them with `sendJson`.
 */
export class JsonAnswer {
  readonly body: Buffer;
  #gzip: Promise<Buffer> | undefined;

  constructor(json: string | Buffer) {
    this.body = typeof json === 'string' ? Buffer.from(json) : json;
  }

  /** The body compressed with gzip, computed on first use (off the event loop) and kept. */
  gzip(): Promise<Buffer> {
    this.#gzip ??= gzipAsync(this.body);
    return this.#gzip;
  }

  /** What it may hold in memory: the body and, once asked for, its compressed form (never larger in practice). */
  get bytes(): number {
    return 2 * this.body.length;
  }
}

/** What a route's serializer (`reply.serialize`) gives, as a prepared answer. */
export function preparedAnswer(serialized: string | Buffer | ArrayBuffer): JsonAnswer {
  return new JsonAnswer(typeof serialized === 'string' || Buffer.isBuffer(serialized) ? serialized : Buffer.from(serialized));
}

/**
 * The answer `cache` keeps under `key` while it holds (domain/read-cache.ts: once every write
 * committed before the request, in any process, has been heard, none touched it); otherwise `read`
 * afresh, serialized by `serialize` (the route's serializer) and kept, unless a write was counted
 * while it was read. A refusal `read` throws is never kept. `caughtUp`: the request's (Ctx.caughtUp).
 */
export async function keptAnswer<T>(
  cache: ReadCache<JsonAnswer>,
  key: string,
  read: () => Promise<T>,
  serialize: (value: T) => string | Buffer | ArrayBuffer,
  caughtUp?: () => Promise<boolean>,
): Promise<JsonAnswer> {
  const kept = await cache.current(key, caughtUp);
  if (kept) return kept;
  const ticket = cache.ticket();
  const answer = preparedAnswer(serialize(await read()));
  cache.set(key, ticket, answer);
  return answer;
}

/** Whether `accept-encoding` admits gzip (`gzip`, `x-gzip` or `*`, without `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Sends a prepared answer (compressed when the client accepts it), or any other value as Fastify serializes it. */
export async function sendJson(request: FastifyRequest, reply: FastifyReply, answer: unknown) {
  if (!(answer instanceof JsonAnswer)) return answer;
  reply.type(JSON_TYPE).header('vary', 'accept-encoding');
  if (answer.body.length >= GZIP_MIN_BYTES && acceptsGzip(request.headers['accept-encoding']))
    return reply.header('content-encoding', 'gzip').send(await answer.gzip());
  return reply.send(answer.body);
}
