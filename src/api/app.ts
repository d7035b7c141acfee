import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { AppDeps, Caller } from './context.ts';
import type { SiteTokenState } from '../db/sites.ts';
import type { SiteTracking } from '../db/insights.ts';
import type { CodeblockIntegration } from '../domain/content/integration-codeblocks.ts';
import { sharedServices, type SharedServices } from '../lib/shared-services.ts';
import { registerAuth, requestToken } from './auth.ts';
import { LRUCache } from 'lru-cache';
import { cacheBytes, setCacheMemory } from '../domain/lru.ts';
import { noteWrite, ReadCache } from '../domain/read-cache.ts';
import { entryBytes } from '../domain/sizeof.ts';
import { watchChanges } from '../db/change-feed.ts';
import type { JsonAnswer } from './json-answer.ts';
import { RateWindows, spokenDuration, type WindowCount } from '../domain/rate-window.ts';
import { badRequest, clientErrorHandler, frameworkErrors, HttpError, MAX_PARAM_LENGTH, registerErrorHandling } from './errors.ts';
import { registerMetrics } from './metrics.ts';
import { registerMemoryReducer } from './memory-reducer.ts';
import { pingDatabase } from '../db/health.ts';
import { forkEm } from '../db/orm.ts';
import { ErrorResponse } from './schemas.ts';
import { userRoutes } from './users/routes.ts';
import { organizationRoutes } from './orgs/routes.ts';
import { collectionRoutes } from './collections/routes.ts';
import { spaceRoutes } from './spaces/routes.ts';
import { permissionRoutes } from './permissions/routes.ts';
import { memberRoutes } from './members/routes.ts';
import { teamRoutes } from './teams/routes.ts';
import { inviteRoutes } from './invites/routes.ts';
import { integrationRoutes } from './integrations/routes.ts';
import { integrationEventRoutes } from './integration-events/routes.ts';
import { contentRoutes, signedFileRoutes } from './content/routes.ts';
import { contentReadRoutes, revisionRoutes } from './revisions/routes.ts';
import { changeRequestRoutes } from './change-requests/routes.ts';
import { changeRequestReviewRoutes } from './change-requests/reviews/routes.ts';
import { openapiRoutes } from './openapi/routes.ts';
import { translationRoutes } from './translations/routes.ts';
import { customFieldRoutes } from './custom-fields/routes.ts';
import { samlRoutes } from './saml/routes.ts';
import { ssoRoutes } from './sso/routes.ts';
import { commentRoutes } from './comments/routes.ts';
import { searchRoutes } from './search/routes.ts';
import { linkRoutes } from './links/routes.ts';
import { CHANGE_REQUEST_CONTENT_PREFIX, SPACE_CONTENT_PREFIX } from './content/schemas.ts';
import { pdfRoutes } from './pdf/routes.ts';
import { contentImportRoutes } from './content-import/routes.ts';
import { siteRoutes } from './sites/routes.ts';
import { siteSectionRoutes } from './sites/sections/routes.ts';
import { siteSpaceRoutes } from './sites/spaces/routes.ts';
import { siteShareLinkRoutes } from './sites/share-links/routes.ts';
import { siteRedirectRoutes } from './sites/redirects/routes.ts';
import { siteSearchRoutes } from './sites/search/routes.ts';
import { siteInsightsRoutes } from './sites/insights/routes.ts';
import { sitePermissionRoutes } from './sites/permissions/routes.ts';
import { customHostnameRoutes } from './custom-hostnames/routes.ts';
import { urlRoutes } from './urls/routes.ts';
import { siteLookupTokenRoutes } from './site-lookup-tokens/routes.ts';
import { gitRoutes, gitWebhookRoutes } from './git/routes.ts';
import { resendGitSyncRequests } from './git/service.ts';
import { BackgroundTasks } from '../lib/background.ts';
import { overloaded, registerLoadShedding } from './overload.ts';
import { auditRoutes } from './audit/routes.ts';
import { registerAuditRecording } from './audit/service.ts';
import { ConcurrencyGate } from '../domain/concurrency-gate.ts';
import { createIntegrationSandbox, integrationSandboxOptions, type IntegrationSandbox } from '../lib/integration-sandbox.ts';

/**
 * Tasks a process runs after their answers at most at once (AppDeps.background): Git Sync signals
 * on their way to the job service, and the resend. Beyond it a recorded request waits for the resend.
 */
const BACKGROUND_TASKS = 256;

/** What a prepared answer kept under `key` holds in memory. */
const answerBytes = (answer: JsonAnswer, key: string) => answer.bytes + 2 * key.length;

export interface AppOptions {
  logger?: Logger | false;
  /** AUTH_CACHE_TTL: how long a verified token or an answer kept between writes is kept at most (ms); 0: nothing is kept. */
  authCacheTtlMs?: number;
  /**
   * Shown every answer as it is sent (its route, status, headers and body); the test suite checks
   * each against GitBook's schema of its operation with it.
   */
  onAnswer?: (answer: SentAnswer) => void;
}

/** An answer as it leaves a route (`AppOptions.onAnswer`). */
export interface SentAnswer {
  method: string;
  /** The request's path and query, as sent. */
  url: string;
  /** The route's path template (`/v1/spaces/:spaceId`), when a route answered. */
  route: string | undefined;
  status: number;
  headers: Record<string, unknown>;
  /** The body as it goes out: text, bytes, a stream or nothing. */
  payload: unknown;
}

/**
 * The HTTP API: every route under /v1, plus /openapi.json, /docs, /healthz, /readyz and /metrics.
 * The shared services are the caller's when given (a process builds them once, runtime.ts), built
 * here from the configuration otherwise.
 */
export async function buildApp(
  given: Omit<
    AppDeps,
    | keyof SharedServices
    | 'spaceAnswers'
    | 'lookupAnswers'
    | 'siteTokenStates'
    | 'spaceCodeblocks'
    | 'siteTracking'
    | 'publishedSites'
    | 'visitorRevisions'
    | 'background'
    | 'integrationSandbox'
    | 'integrationEndpoints'
  > &
    Partial<SharedServices>,
  options: AppOptions = {},
): Promise<FastifyInstance> {
  const { blobs, secrets, pdfSigningKey, fileUrlKey, siteTokenKey } = given;
  setCacheMemory(given.config.cacheMemory);
  const authCacheTtlMs = options.authCacheTtlMs ?? 5000;
  const deps: AppDeps = {
    ...given,
    ...(blobs && secrets && pdfSigningKey && fileUrlKey && siteTokenKey
      ? { blobs, secrets, pdfSigningKey, fileUrlKey, siteTokenKey }
      : sharedServices(given.config)),
    spaceAnswers: new ReadCache<JsonAnswer>(cacheBytes('spaceAnswers'), answerBytes, authCacheTtlMs),
    lookupAnswers: new ReadCache<JsonAnswer>(cacheBytes('lookupAnswers'), answerBytes, authCacheTtlMs),
    siteTokenStates: new ReadCache<SiteTokenState>(cacheBytes('siteTokenStates'), (state, key) => entryBytes(key, state), authCacheTtlMs),
    publishedSites: new ReadCache<JsonAnswer>(cacheBytes('publishedSites'), answerBytes, authCacheTtlMs),
    spaceCodeblocks: new ReadCache<CodeblockIntegration[]>(
      cacheBytes('spaceCodeblocks'),
      (value, key) => entryBytes(key, value),
      authCacheTtlMs,
    ),
    visitorRevisions: new ReadCache<JsonAnswer>(cacheBytes('visitorRevisions'), answerBytes, authCacheTtlMs),
    siteTracking: new ReadCache<SiteTracking>(cacheBytes('siteTracking'), (value, key) => entryBytes(key, value), authCacheTtlMs),
    background: new BackgroundTasks(BACKGROUND_TASKS),
    integrationSandbox: () => (sandbox ??= createIntegrationSandbox(integrationSandboxOptions(given.config))),
    integrationEndpoints: new ConcurrencyGate(),
  };
  let sandbox: IntegrationSandbox | undefined;
  // Verified tokens, kept between writes as the answers are (api/auth.ts).
  const tokens = new ReadCache<Caller>(cacheBytes('apiTokens'), (caller, key) => entryBytes(key, caller), authCacheTtlMs);
  // Every cache of answers kept between writes, by its name in /metrics (kept_answers_total).
  const kept = {
    space: deps.spaceAnswers,
    lookup: deps.lookupAnswers,
    tokens,
    siteTokenStates: deps.siteTokenStates,
    spaceCodeblocks: deps.spaceCodeblocks,
    publishedSites: deps.publishedSites,
    visitorRevisions: deps.visitorRevisions,
    siteTracking: deps.siteTracking,
  };
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger as FastifyBaseLogger } : { logger: false }),
    genReqId: (req) => (typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'].slice(0, 128) : randomUUID()),
    requestIdHeader: false,
    bodyLimit: deps.config.bodyLimit,
    // Behind a balancer, the client's address comes from X-Forwarded-For of the proxies trusted (TRUST_PROXY).
    trustProxy: deps.config.trustProxy,
    // Path parameters longer than the router's default of 100 reach validation, which names them in a 400;
    // longer still, the router answers 414 (frameworkErrors), in the error shape.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    // While closing, registerErrorHandling refuses new requests itself, in the error shape.
    return503OnClosing: false,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    // JSON bodies are typed on the wire: `{"title": 12}` is refused (400 naming the field), never read as "12".
    // Path, query and header values are always strings, so those still coerce ("?limit=5" is the number 5).
    // Each route's validators and serializers are compiled on first use, not at start: a process
    // only holds the code of the routes it serves (about 100 MB less for one that serves a few).
    schemaController: { compilersFactory: { buildValidator: lazily(partAwareValidator), buildSerializer: lazily(SerializerSelector()) } },
  });
  app.decorate('deps', deps);
  app.addHook('onClose', async () => {
    await sandbox?.close();
  });
  // Answers kept between writes hold only while other processes' writes are heard (AUTH_CACHE_TTL 0: none are kept).
  let feedCaughtUp: () => Promise<boolean> = async () => false;
  if (authCacheTtlMs > 0) {
    const feed = watchChanges(String(deps.orm.config.get('clientUrl')), {
      onChange: noteWrite,
      onLive: (live) => Object.values(kept).forEach((cache) => cache.setLive(live)),
      onError: (error) => app.log.warn({ err: error }, 'change feed: connection lost; answers are read afresh until it is back'),
    });
    // A kept answer is served once the writes committed anywhere before its request have been heard.
    feedCaughtUp = () => feed.caughtUp();
    for (const cache of Object.values(kept)) cache.catchUpWith(feedCaughtUp);
    app.addHook('onClose', () => feed.stop());
  }
  const onAnswer = options.onAnswer;
  if (onAnswer) {
    app.addHook('onSend', async (request, reply, payload) => {
      onAnswer({
        method: request.method,
        url: request.url,
        route: request.routeOptions.url,
        status: reply.statusCode,
        headers: reply.getHeaders(),
        payload,
      });
      return payload;
    });
  }
  app.decorateRequest('em', null as never);
  app.decorateRequest('caughtUp', null as never);
  app.addHook('onRequest', async (request, reply) => {
    request.em = forkEm(deps.orm);
    // Asked at most once per request, after it arrived: every kept answer it reads shares it.
    let caughtUp: Promise<boolean> | undefined;
    request.caughtUp = () => (caughtUp ??= feedCaughtUp());
    reply.header('x-request-id', request.id);
    // PostgreSQL cannot hold U+0000 in text or jsonb: refused here, with a clear 400, for every route.
    if (/%00/.test(request.url)) throw badRequest('The request URL must not contain the character U+0000 (%00)');
  });
  // An empty body sent as JSON (some clients label every request) reads as no body at all.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '' || body === undefined) return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(body as string);
    } catch {
      return done(Object.assign(new Error('The request body is not valid JSON'), { statusCode: 400 }), undefined);
    }
    const problem = bodyProblem(value);
    if (problem) return done(badRequest(problem), undefined);
    // A large body goes on to validation at the next turn of the event loop: reading it and
    // validating it are two steps, so other requests are answered in between.
    if ((body as string).length > LARGE_BODY) setImmediate(() => done(null, value));
    else done(null, value);
  });
  // A write without a body is a write with an empty object: optional-body operations then validate.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && (request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH')) {
      request.body = {};
    }
  });
  registerErrorHandling(app);
  await registerLoadShedding(app, { maxDelayMs: deps.config.overloadEventLoopDelayMs });
  if (deps.config.rateLimit.max > 0) registerRateLimit(app, deps.config.rateLimit);
  registerAuth(app, {
    tokens,
    failureMax: deps.config.rateLimit.authFailures,
    failureWindowMs: deps.config.rateLimit.windowMs,
  });
  registerMetrics(app, kept);
  registerMemoryReducer(app, { isProbe: (route) => PROBES.has(route), largeBody: LARGE_BODY });
  registerGitSyncResend(app, deps);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Documentation Management Service API',
        version: '1.0.0',
        description: 'Organizations, collections, spaces and their content. Every /v1 route needs `Authorization: Bearer <token>`.',
      },
      servers: [{ url: deps.config.publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  app.addSchema(ErrorResponse);
  // The API's documentation pages need no token: their routes are marked public in a scope of their own.
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    await scope.register(swaggerUi, { routePrefix: '/docs' });
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  app.get('/healthz', { schema: { hide: true }, config: { public: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    const checks: Record<string, string> = {};
    // The route needs no token: what failed is named, the error itself only logged.
    const failed = (what: string) => (error: Error) => {
      checks[what] = 'unavailable';
      request.log.warn({ err: error }, `readiness: ${what} unavailable`);
    };
    await Promise.all([
      pingDatabase(request.em).then(() => (checks.database = 'ok'), failed('database')),
      deps.temporal.connection.workflowService.getSystemInfo({}).then(() => (checks.temporal = 'ok'), failed('temporal')),
    ]);
    if (overloaded(app)) checks.eventLoop = 'overloaded';
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });

  // Every catalogued change records its audit event (domain/audit.ts): added before the routes it wraps.
  registerAuditRecording(app);
  await app.register(userRoutes);
  await app.register(organizationRoutes);
  await app.register(collectionRoutes);
  await app.register(spaceRoutes);
  // Content, comments and links: one plugin each, for a space's content and for a change request's.
  await app.register(contentRoutes, { prefix: SPACE_CONTENT_PREFIX, changeRequest: false });
  await app.register(contentRoutes, { prefix: CHANGE_REQUEST_CONTENT_PREFIX, changeRequest: true });
  await app.register(signedFileRoutes);
  await app.register(changeRequestRoutes);
  await app.register(changeRequestReviewRoutes);
  await app.register(openapiRoutes);
  await app.register(customFieldRoutes);
  await app.register(translationRoutes);
  await app.register(samlRoutes);
  await app.register(ssoRoutes);
  await app.register(commentRoutes, { prefix: SPACE_CONTENT_PREFIX, changeRequest: false });
  await app.register(commentRoutes, { prefix: CHANGE_REQUEST_CONTENT_PREFIX, changeRequest: true });
  await app.register(integrationRoutes);
  await app.register(integrationEventRoutes);
  await app.register(memberRoutes);
  await app.register(teamRoutes);
  await app.register(inviteRoutes);
  await app.register(permissionRoutes, { prefix: '/v1/spaces/:spaceId', kind: 'space' });
  await app.register(permissionRoutes, { prefix: '/v1/collections/:collectionId', kind: 'collection' });
  await app.register(searchRoutes);
  await app.register(linkRoutes, { prefix: SPACE_CONTENT_PREFIX, changeRequest: false });
  await app.register(linkRoutes, { prefix: CHANGE_REQUEST_CONTENT_PREFIX, changeRequest: true });
  await app.register(pdfRoutes);
  await app.register(contentImportRoutes, { prefix: '/v1/spaces/:spaceId', target: 'space' });
  await app.register(contentImportRoutes, { prefix: '/v1/spaces/:spaceId/change-requests/:changeRequestId', target: 'change-request' });
  await app.register(siteRoutes);
  await app.register(siteSectionRoutes);
  await app.register(siteSpaceRoutes);
  await app.register(siteShareLinkRoutes);
  await app.register(siteRedirectRoutes);
  await app.register(siteSearchRoutes);
  await app.register(siteInsightsRoutes);
  await app.register(sitePermissionRoutes);
  await app.register(customHostnameRoutes);
  await app.register(urlRoutes);
  await app.register(siteLookupTokenRoutes);
  await app.register(gitRoutes);
  await app.register(gitWebhookRoutes);
  await app.register(auditRoutes);
  // Reads of revisions by id, and the reusable contents and meta links of content and change requests.
  await app.register(revisionRoutes, { prefix: SPACE_CONTENT_PREFIX });
  await app.register(contentReadRoutes, { prefix: SPACE_CONTENT_PREFIX, changeRequest: false });
  await app.register(contentReadRoutes, { prefix: CHANGE_REQUEST_CONTENT_PREFIX, changeRequest: true });
  return app;
}

/**
 * Every GIT_SYNC_RESEND_AFTER, sends again the Git Sync requests recorded but never handed to their
 * workflow (git/service.ts); one pass at a time. Closing the app stops the timer and waits for
 * what was started in the background, this pass and the signals that follow answers.
 */
function registerGitSyncResend(app: FastifyInstance, deps: AppDeps): void {
  let passing = false;
  const timer = setInterval(() => {
    if (passing) return;
    // Not started while the process has as many background tasks as it allows: the next tick tries again.
    passing = deps.background.run(() =>
      resendGitSyncRequests(deps, app.log)
        .then(
          () => undefined,
          (error: unknown) => app.log.warn({ err: error }, 'git sync: could not look for requests to send again'),
        )
        .finally(() => (passing = false)),
    );
  }, deps.config.gitSyncResendAfterMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await deps.background.drain();
  });
}

/**
 * A compiler factory whose compilers return a stand-in that compiles the real function the first
 * time it is called. Ajv validators report through an `errors` property, which the stand-in passes on.
 */
function lazily<F extends (...args: never[]) => (route: never) => unknown>(factory: F): F {
  const lazyFactory = (...args: Parameters<F>) => {
    const compile = factory(...args);
    return (route: never) => {
      let compiled: ((data: unknown) => unknown) | undefined;
      const standIn = (data: unknown) => (compiled ??= compile(route) as (data: unknown) => unknown)(data);
      Object.defineProperty(standIn, 'errors', { get: () => (compiled as { errors?: unknown } | undefined)?.errors });
      return standIn;
    };
  };
  return lazyFactory as unknown as F;
}

const ajvCompilers = AjvCompiler();
type RouteValidation = { httpPart?: string };

/** Fastify's own Ajv compiler, with type coercion turned off for request bodies only. */
const partAwareValidator: AjvCompiler.BuildCompilerFromPool = (externalSchemas, options) => {
  const coercing = ajvCompilers(externalSchemas, options) as unknown as (route: RouteValidation) => unknown;
  const strictOptions = { ...options, customOptions: { ...options?.customOptions, coerceTypes: false } } as typeof options;
  const strict = ajvCompilers(externalSchemas, strictOptions) as unknown as (route: RouteValidation) => unknown;
  // Fastify calls the compiler with the route's { schema, method, url, httpPart } (the published type says a bare schema).
  return ((route: RouteValidation) =>
    route.httpPart === 'body' ? strict(route) : coercing(route)) as unknown as ReturnType<AjvCompiler.BuildCompilerFromPool>;
};

/**
 * Callers (tokens or addresses) whose request counts one API process keeps, least recently seen
 * first out: past this many callers in one window, the least recently seen start counting again.
 */
export const RATE_LIMIT_CALLERS = 10_000;

/**
 * At most `max` requests per window per API token (its hash), or per client IP address without
 * one (the address Fastify gives, from X-Forwarded-For of the proxies TRUST_PROXY trusts); over
 * it, 429 in the error shape with Retry-After. Every answer says where its caller stands
 * (`x-ratelimit-limit`, `-remaining`, `-reset` in seconds: of its most constrained window).
 * Probes (/healthz, /readyz, /metrics) are not counted. Counts are kept per process: behind a
 * balancer over N API processes a caller may make up to N × max. One synchronous hook, ahead of
 * authentication (requests with a bad token count too), sharing the token's hash with it.
 *
 * The site renderer's tokens carry the requests of every reader of a site, so they count against
 * windows of their own, once they have been verified (`readers`: a token's shape alone never
 * earns them; until then, and for any token that fails, it is an API token like any other):
 * - a site lookup token: the readers' limit (readerMax), per token;
 * - a site visitor's token: per site and per client address, at the readers' limit when the site
 *   renderer minted it (a site lookup token's lookup), else at `max`, and then also against the
 *   window of the API token whose lookup minted it (`minted:<id>`): a token minting visitor
 *   tokens never reads more than its own limit through them.
 */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** A verified reader token: what its windows are made of (fixed by the token: a visitor's claims never change). */
type Reader = { kind: 'lookup' } | { kind: 'visitor'; siteId: string; minter?: string };

function registerRateLimit(app: FastifyInstance, limit: { max: number; readerMax: number; windowMs: number }): void {
  const windows = new RateWindows(limit.windowMs, RATE_LIMIT_CALLERS);
  const readers = new LRUCache<string, Reader>({ max: RATE_LIMIT_CALLERS });
  const window = spokenDuration(limit.windowMs);
  const readerMax = limit.readerMax === 0 ? Number.MAX_SAFE_INTEGER : limit.readerMax;

  /** The windows one request counts in: [key, max] pairs. */
  function windowsOf(reader: Reader, hash: string, ip: string): [string, number][] {
    if (reader.kind === 'lookup') return [[`reader:${hash}`, readerMax]];
    const perAddress = `visitor:${reader.siteId}:${ip}`;
    return reader.minter
      ? [
          [perAddress, limit.max],
          [`minted:${reader.minter}`, limit.max],
        ]
      : [[perAddress, readerMax]];
  }

  /** Counts the request in each window; the refusal when one is exceeded. Headers: the most constrained window. */
  function count(reply: FastifyReply, counted: [string, number][], now: number): HttpError | undefined {
    let tightest: WindowCount | undefined;
    for (const [key, max] of counted) {
      const next = windows.hit(key, max, now);
      if (
        !tightest ||
        (next.exceeded && !tightest.exceeded) ||
        (next.exceeded === tightest.exceeded && next.remaining < tightest.remaining)
      ) {
        tightest = next;
      }
    }
    if (!tightest) return undefined;
    const resetSeconds = Math.ceil(tightest.resetMs / 1000);
    reply
      .header('x-ratelimit-limit', tightest.max)
      .header('x-ratelimit-remaining', tightest.remaining)
      .header('x-ratelimit-reset', resetSeconds);
    if (!tightest.exceeded) return undefined;
    const refused = new HttpError(429, `Too many requests: at most ${tightest.max} per ${window}; retry in ${resetSeconds} s`);
    refused.retryAfterSeconds = resetSeconds;
    return refused;
  }

  app.addHook('onRequest', (request, reply, done) => {
    // Probes are never counted: decided by the route matched, like authentication.
    if (PROBES.has(request.routeOptions.url ?? '')) return done();
    // One window per token, however the header spells it ("Bearer", "BEARER", extra spaces); requests
    // without a well-formed token count against their address.
    const token = requestToken(request);
    const now = Date.now();
    let counted: [string, number][];
    if (token === null) counted = [[`ip:${request.ip}`, limit.max]];
    else {
      const known = readers.get(token.hash);
      counted = known ? windowsOf(known, token.hash, request.ip) : [[`token:${token.hash}`, limit.max]];
    }
    done(count(reply, counted, now));
  });

  // Once authenticated: a reader token is remembered by its verified caller, and its first request
  // counts in its reader windows too.
  app.addHook('preValidation', (request, reply, done) => {
    const token = requestToken(request);
    const caller = request.caller as Caller | null;
    if (token === null || !caller || (!caller.visitor && !caller.siteLookup) || readers.get(token.hash)) return done();
    const reader: Reader = caller.siteLookup
      ? { kind: 'lookup' }
      : { kind: 'visitor', siteId: caller.visitor!.siteId, ...(caller.visitor!.minter ? { minter: caller.visitor!.minter } : {}) };
    readers.set(token.hash, reader);
    done(count(reply, windowsOf(reader, token.hash, request.ip), Date.now()));
  });
}

/**
 * How deeply a JSON body may nest arrays and objects. The deepest bodies the API takes are GitBook
 * documents (comments, translations) and JSON Schemas (adaptive content): a list nested ten levels
 * deep in a document body is about 50 levels of JSON. Deeper bodies are refused before anything
 * recursive (validation, serializers, renderers) walks them: 10,000 levels overflowed the stack.
 */
export const MAX_JSON_DEPTH = 128;

/** Bodies larger than this (characters) are validated at the next turn of the event loop. */
const LARGE_BODY = 1024 * 1024;

/**
 * What is wrong with a parsed JSON body, as a 400 message: arrays and objects nested more than
 * MAX_JSON_DEPTH levels deep, or a string or key holding U+0000 (named by its path, `body.a.b`);
 * undefined when nothing is. Iterative: one frame per level of nesting, never the call stack.
 */
function bodyProblem(body: unknown): string | undefined {
  const frames: { node: unknown[] | Record<string, unknown>; keys: string[] | null; next: number; key: string }[] = [];
  const path = (child?: string) => ['body', ...frames.slice(1).map((f) => f.key), ...(child === undefined ? [] : [child])].join('.');
  let value = body;
  let key: string | undefined;
  for (;;) {
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return `${path(key)} must not contain the character U+0000`;
    } else if (value !== null && typeof value === 'object') {
      if (frames.length === MAX_JSON_DEPTH) return `body must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;
      frames.push({ node: value as never, keys: Array.isArray(value) ? null : Object.keys(value), next: 0, key: key ?? '' });
    }
    // On to the next value in document order: in the innermost array or object with one left.
    for (;;) {
      const top = frames.at(-1);
      if (!top) return undefined;
      if (top.next < (top.keys ?? (top.node as unknown[])).length) {
        const i = top.next++;
        if (top.keys) {
          key = top.keys[i];
          if (key.includes('\u0000')) return `${path()} (a key) must not contain the character U+0000`;
          value = (top.node as Record<string, unknown>)[key];
        } else {
          key = String(i);
          value = (top.node as unknown[])[i];
        }
        break;
      }
      frames.pop();
    }
  }
}
