import {
  findContentInstallation,
  findIntegration,
  findInstallation,
  siteScriptInstallations,
  siteVisitorAuthInstallation,
} from '../../db/integrations.ts';
import { newId } from '../../domain/ids.ts';
import { publicEndpointAnswerHeaders, publicEndpointRequestHeaders } from '../../domain/integration-endpoints.ts';
import type { Ctx } from '../context.ts';
import type { SandboxResponse } from '../../lib/integration-sandbox.ts';
import { HttpError, notFound } from '../errors.ts';
import { dispatchForRequest, dispatchTarget, type DispatchFor } from './environment.ts';

/**
 * An integration's public endpoints (`urls.publicEndpoint` of the integration, of each of its
 * installations and of each site installation): every request under them becomes GitBook's `fetch`
 * event, dispatched to the script with the integration's environment (or the installation's, with
 * its token, and the site installation's: where a visitor authentication callback lands), and the
 * script's answer is the answer. They take no token, as on GitBook: the script decides who it
 * answers (a webhook's signature, an OAuth callback's state). The caller's `authorization` and
 * `cookie` headers are not passed on, and the answer is served under this service's origin with
 * `content-security-policy: sandbox allow-scripts` and without `set-cookie` (header rules in
 * domain/integration-endpoints.ts). A paused installation's endpoint is 404; a script that fails or
 * runs past its limits is a 502.
 */

/** A fetch event's script gets a token acting as the installation for this long (reused while half is left). */
const FETCH_TOKEN_TTL_MS = 10 * 60_000;

/** The script and environment of a request to a public endpoint, with a token reused per installation (dispatchTarget). */
const publicTarget = (ctx: Ctx, target: DispatchFor) =>
  dispatchTarget(ctx.em, target, {
    publicUrl: ctx.deps.config.publicUrl,
    secrets: ctx.deps.secrets,
    tokenTtlMs: FETCH_TOKEN_TTL_MS,
    reuse: true,
  });

/**
 * The script's answer to a request without a token, as it is served; while the integration already
 * has INTEGRATION_ENDPOINT_CONCURRENCY such requests in flight in this process, a 429 (Retry-After: 1)
 * instead: anyone may send them, and one integration's flood must not take the others' share of the
 * sandbox, nor the API's.
 */
async function answered(ctx: Ctx, integrationName: string, dispatch: () => Promise<SandboxResponse>): Promise<PublicAnswer> {
  const max = ctx.deps.config.integrations.endpointConcurrency;
  const answer = await ctx.deps.integrationEndpoints.within(integrationName, max, dispatch);
  if (!answer) {
    const busy = new HttpError(429, `The integration ${integrationName} is answering ${max} requests already; retry in 1 s`);
    busy.retryAfterSeconds = 1;
    throw busy;
  }
  return { status: answer.status, headers: publicEndpointAnswerHeaders(answer.headers), body: answer.body };
}

export interface PublicRequest {
  method: string;
  /** The path and query as received. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | undefined;
}

export interface PublicAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export async function integrationFetch(
  ctx: Ctx,
  target: { integrationName: string; installationId?: string; siteId?: string },
  request: PublicRequest,
): Promise<PublicAnswer> {
  if (!(await findIntegration(ctx.em, target.integrationName))) throw notFound('Integration');
  if (target.installationId !== undefined) {
    const installation = await findInstallation(ctx.em, target.integrationName, target.installationId);
    if (!installation || installation.status === 'paused') throw notFound('Integration installation');
    if (target.siteId !== undefined) {
      const onSite = await findContentInstallation(ctx.em, 'site', installation.id, target.siteId);
      if (!onSite || onSite.status !== 'active') throw notFound('Integration installation on this site');
    }
  }
  const found = await publicTarget(ctx, target);
  if (!found) throw notFound(target.installationId === undefined ? 'Integration' : 'Integration installation');
  const event = {
    type: 'fetch',
    eventId: newId(),
    ...(target.installationId !== undefined ? { installationId: target.installationId } : {}),
    ...(target.siteId !== undefined ? { siteId: target.siteId } : {}),
  };
  const fetchRequest = {
    method: request.method,
    url: `${ctx.deps.config.publicUrl}${request.url}`,
    headers: publicEndpointRequestHeaders(request.headers),
    ...(request.body && request.body.length > 0 ? { body: new Uint8Array(request.body) } : {}),
  };
  const failure = `The integration ${target.integrationName} could not answer`;
  return answered(ctx, target.integrationName, () =>
    dispatchForRequest(ctx.deps.integrationSandbox(), found, event, failure, fetchRequest),
  );
}

/**
 * Where a site's visitor signs in through a visitor authentication integration (the lookup of a
 * site whose visitors must sign in sends them here): GitBook's `fetch_visitor_authentication`
 * event (`location`, the page they asked for; `action: logout` to sign out) with the site
 * installation's environment, and the script's answer, usually a redirect to its identity provider.
 * No token; 404 unless the installation is the one signing the site's visitors in.
 */
export async function visitorAuthentication(
  ctx: Ctx,
  target: { integrationName: string; installationId: string; siteId: string },
  query: { location?: string; action?: 'logout' },
): Promise<PublicAnswer> {
  const signing = await siteVisitorAuthInstallation(ctx.em, target.siteId);
  if (!signing || signing.integrationName !== target.integrationName || signing.installationId !== target.installationId) {
    throw notFound('Visitor authentication');
  }
  const found = await publicTarget(ctx, target);
  if (!found) throw notFound('Visitor authentication');
  const event = {
    type: 'fetch_visitor_authentication',
    eventId: newId(),
    installationId: target.installationId,
    siteId: target.siteId,
    ...(query.location !== undefined ? { location: query.location } : {}),
    ...(query.action ? { action: query.action } : {}),
  };
  const failure = `The integration ${target.integrationName} could not sign the visitor in`;
  return answered(ctx, target.integrationName, () => dispatchForRequest(ctx.deps.integrationSandbox(), found, event, failure));
}

/**
 * A site's integration script (`urls.siteScript`, listed in the published site's `scripts`): the
 * installation's script answers GitBook's `fetch_published_script` event with the JavaScript the
 * site's pages load. No token (a visitor's browser loads it); 404 unless the installation is one
 * of the site's scripts (active, enabled on the site, scope `site:script:inject`).
 */
export async function publishedSiteScript(
  ctx: Ctx,
  target: { integrationName: string; installationId: string; siteId: string },
): Promise<PublicAnswer> {
  const listed = await siteScriptInstallations(ctx.em, target.siteId);
  if (!listed.some((s) => s.integrationName === target.integrationName && s.installationId === target.installationId)) {
    throw notFound('Site script');
  }
  const found = await publicTarget(ctx, target);
  if (!found) throw notFound('Site script');
  const event = { type: 'fetch_published_script', eventId: newId(), installationId: target.installationId, siteId: target.siteId };
  const failure = `The integration ${target.integrationName} could not answer its script`;
  return answered(ctx, target.integrationName, () => dispatchForRequest(ctx.deps.integrationSandbox(), found, event, failure));
}
