import type { ConcurrencyGate } from '../domain/concurrency-gate.ts';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyTypeProvider, RawServerDefault } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Client } from '@temporalio/client';
import type { Config } from '../config.ts';
import type { Em, Orm } from '../db/orm.ts';
import type { SiteTokenState } from '../db/sites.ts';
import type { SiteTracking } from '../db/insights.ts';
import type { SharedServices } from '../lib/shared-services.ts';
import type { ReadCache } from '../domain/read-cache.ts';
import type { CodeblockIntegration } from '../domain/content/integration-codeblocks.ts';
import type { JsonAnswer } from './json-answer.ts';
import type { BackgroundTasks } from '../lib/background.ts';
import type { IntegrationSandbox } from '../lib/integration-sandbox.ts';

/**
 * What every route can reach: configuration, the database, the Temporal client, and the process's
 * shared services (blob store, secret box, signing keys), each built once.
 */
export interface AppDeps extends SharedServices {
  config: Config;
  orm: Orm;
  temporal: Client;
  /**
   * Members' answers of `GET /v1/spaces/{id}`, serialized, kept between writes (domain/read-cache.ts)
   * for at most AUTH_CACHE_TTL; buildApp makes it, with the database's change feed that keeps it true.
   */
  spaceAnswers: ReadCache<JsonAnswer>;
  /** Answers of `POST /v1/urls/published`, by the caller's reach and the request, kept the same way (api/urls/service.ts). */
  lookupAnswers: ReadCache<JsonAnswer>;
  /** What site visitors' tokens must still hold, by site and share link, kept the same way (api/site-tokens.ts). */
  siteTokenStates: ReadCache<SiteTokenState>;
  /** The code blocks integrations installed on a space claim as their blocks, by space (api/revisions/documents.ts). */
  spaceCodeblocks: ReadCache<CodeblockIntegration[]>;
  /** What storing a site's insights events needs of it, by organization and site, kept the same way (api/sites/insights/service.ts). */
  siteTracking: ReadCache<SiteTracking>;
  /**
   * Site visitors' answers of `GET /v1/orgs/{org}/sites/{site}/published`, by site, share link,
   * spaces and claims, kept the same way (api/sites/publishing.ts).
   */
  publishedSites: ReadCache<JsonAnswer>;
  /**
   * Site visitors' answers of `GET /v1/spaces/{space}/revisions/{revision}` at the revision their
   * token names, by revision, space and presentation, kept the same way and served without reading
   * the revision row (api/revisions/service.ts).
   */
  visitorRevisions: ReadCache<JsonAnswer>;
  /** Work started for a request and finished after its answer; closing the app waits for it. */
  background: BackgroundTasks;
  /**
   * The sandbox that runs integrations' scripts for answers a request waits for (`render`), started
   * on first use (workerd processes of its own, INTEGRATION_* limits) and stopped with the app.
   */
  integrationSandbox: () => IntegrationSandbox;
  /** Dispatches in flight per integration for requests without a token (public endpoints, visitor sign-in, site scripts). */
  integrationEndpoints: ConcurrencyGate;
}

/** The authenticated caller. */
export interface Caller {
  user: { id: string; displayName: string; email: string; photoUrl: string | null };
  tokenId: string;
  /**
   * The one organization this token works in (a token minted by an organization's SAML sign-in),
   * or null for a token of the user's own. access.ts answers 404 for everything outside it.
   */
  organizationId: string | null;
  /**
   * Set when the bearer token is a site visitor's token (the `apiToken` of a published URL lookup):
   * a read-only credential for one published site. Its `user` matches no account, so every
   * membership check fails for it; access.ts grants it reads of the site's spaces only, on routes
   * marked `config: { visitor: true }`.
   */
  visitor?: VisitorGrant;
  /**
   * Set when the bearer token is a site lookup token: it resolves the published URLs of this
   * organization's sites (routes marked `config: { siteLookup: true }`) and nothing else.
   */
  siteLookup?: { organizationId: string };
  /**
   * Set when the bearer token acts as an integration's installation (createIntegrationInstallationToken):
   * its `user` matches no account and `organizationId` is the installation's organization; access.ts
   * grants it what the integration's scopes allow on the spaces the installation reaches, on routes
   * marked `config: { installation: true }`.
   */
  installation?: InstallationGrant;
}

/** What a token acting as an installation allows, read when the token is verified (api/auth.ts). */
export interface InstallationGrant {
  installationId: string;
  integrationName: string;
  organizationId: string;
  /** The integration's scopes (`space:content:read`, …) as last published. */
  scopes: string[];
  /** The spaces and sites of the organization the installation is enabled on, or `all` of them. */
  spaces: 'all' | string[];
  sites: 'all' | string[];
  /** When the token stops working. */
  expiresAt: number;
}

/** What a site visitor's token allows: reading one published site as that visitor. */
export interface VisitorGrant {
  organizationId: string;
  siteId: string;
  /** The spaces of the site's live site-spaces. */
  spaceIds: string[];
  /** The visitor's claims (signed claims and validated unsigned claims), for adaptive content. */
  claims: Record<string, unknown>;
  /** The revision the visitor's lookup answered with: readable even once its space has moved on. */
  revision: { spaceId: string; revisionId: string };
  /** The share link the token was minted through, if any: answers kept for visitors are kept by it. */
  shareLink?: string;
  /**
   * `token:<id>` of the API token whose lookup minted the visitor's token; absent when the site
   * renderer's site lookup token did. The rate limit tells them apart (app.ts).
   */
  minter?: string;
  /**
   * A preview's token (site-token.ts `preview`): the site is read whether published or not, and
   * the change requests and every revision of the spaces it shows are readable too.
   */
  preview?: boolean;
  /** A preview's token that shows the site's drafts too (site-token.ts `drafts`). */
  drafts?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    /** A unit of work of its own for this request. */
    em: Em;
    caller: Caller;
    /**
     * Whether every write committed anywhere before this request has been heard (the change
     * feed's `caughtUp`), asked once for the request and shared by every kept answer it reads.
     */
    caughtUp: () => Promise<boolean>;
  }
}

/**
 * What a service works with: the request's unit of work, the caller, the app's dependencies, and
 * the request's logger (for what a request does after its answer is decided, such as starting a
 * follow-up job).
 */
export interface Ctx {
  em: Em;
  caller: Caller;
  deps: AppDeps;
  log: FastifyBaseLogger;
  /** The request's catching up with other processes' writes (FastifyRequest.caughtUp), if any. */
  caughtUp?: () => Promise<boolean>;
}

/** The service context of a request. */
export function ctxOf(request: {
  em: Em;
  caller: Caller;
  server: { deps: AppDeps };
  log: FastifyBaseLogger;
  caughtUp?: () => Promise<boolean>;
}): Ctx {
  return { em: request.em, caller: request.caller, deps: request.server.deps, log: request.log, caughtUp: request.caughtUp };
}

/**
 * Request parts (params, querystring, body, headers) typed from their TypeBox schemas, so a
 * handler reads `request.body.title` with no cast. Answers are left untyped at compile time: the
 * presenters build them and the response schemas check and serialize them at run time.
 */
export interface RequestTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: unknown;
}

/** A route plugin of the API: every `src/api/<group>/routes.ts` exports one. */
export type RoutePlugin<Options extends Record<string, unknown> = Record<never, never>> = FastifyPluginAsync<
  Options,
  RawServerDefault,
  RequestTypeProvider
>;
