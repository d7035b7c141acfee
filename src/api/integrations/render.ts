import type { Static } from 'typebox';
import { Value } from 'typebox/value';
import { installationsOnSpace } from '../../db/integration-events.ts';
import { findIntegration, organizationInstallation, siteInstallationOf } from '../../db/integrations.ts';
import { newId } from '../../domain/ids.ts';
import { decompressRenderRequest, RenderRequestError, renderVerdict } from '../../domain/integration-render.ts';
import { loadSpace, requireOrganization, requireRole } from '../access.ts';
import { requireSite } from '../sites/site-access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, HttpError, notFound } from '../errors.ts';
import { dispatchForRequest, dispatchTarget } from './environment.ts';
import { RenderBody } from './schemas.ts';

/**
 * `renderIntegrationUIWithPost` / `…WithGet`: a component of an integration rendered as ContentKit.
 * The context names where it is shown, which decides who may ask and for which installation:
 * - `document` (a block in a page of a space): anyone who reads the space (a member, the site
 *   visitor's token of a site publishing it, an installation's token), for the installation of
 *   the integration enabled on that space;
 * - `configuration_space`: an admin of the space; `configuration_site`: an admin of the site, for
 *   the installation enabled on it; `configuration_account`: an admin of the organization, for the
 *   organization's installation.
 * The script gets GitBook's `ui_render` event with the installation's environment and answers the
 * output, passed on as it is (with its Cache-Control). A script that fails, or is stopped by its
 * limits, is a 502 naming why; one that refuses (a 4xx, such as an unknown component) is that 4xx.
 */

/** How long the installation token a render's script is given works (reused while half of it is left): long enough for its own API calls. */
const RENDER_TOKEN_TTL_MS = 10 * 60_000;

export type RenderRequest = Static<typeof RenderBody>;

export interface Rendered {
  /** The integration's answer, JSON. */
  body: string;
  cacheControl?: string;
}

/** The GET form's request: lz-string compressed JSON, checked against the POST body's schema. */
export function renderRequestFromQuery(compressed: string): RenderRequest {
  let value: unknown;
  try {
    value = decompressRenderRequest(compressed);
  } catch (error) {
    if (error instanceof RenderRequestError) throw badRequest(`request: ${error.message}`);
    throw error;
  }
  if (!Value.Check(RenderBody, value)) {
    const [problem] = Value.Errors(RenderBody, value);
    throw badRequest(`request: ${problem ? `${problem.instancePath || '/'} ${problem.message}` : 'not a render request'}`);
  }
  return value;
}

/** The installation a render is for, and what its event says it is about, once the caller may see that context. */
async function renderTarget(ctx: Ctx, integrationName: string, context: RenderRequest['context']) {
  switch (context.type) {
    case 'document':
    case 'configuration_space': {
      if (!context.spaceId) throw badRequest(`context.spaceId is required for a ${context.type} context`);
      const { space, role } = await loadSpace(ctx.em, ctx.caller, context.spaceId);
      if (context.type === 'configuration_space') requireRole(role, 'admin', "render this space installation's configuration");
      const installation = (await installationsOnSpace(ctx.em, space.id)).find((i) => i.integrationName === integrationName);
      if (!installation) throw notFound('Integration installation on this space');
      return { installationId: installation.installationId, spaceId: space.id };
    }
    case 'configuration_account': {
      if (!context.organizationId) throw badRequest('context.organizationId is required for a configuration_account context');
      const { organization } = await requireOrganization(ctx, context.organizationId, 'admin', "render this installation's configuration");
      const installation = await organizationInstallation(ctx.em, organization.id, integrationName);
      // A pending installation renders its configuration (that is how it is completed); a paused one does not.
      if (!installation || installation.status === 'paused') throw notFound('Integration installation');
      return { installationId: installation.id };
    }
    case 'configuration_site': {
      if (!context.siteId) throw badRequest('context.siteId is required for a configuration_site context');
      const installation = await siteInstallationOf(ctx.em, integrationName, context.siteId);
      if (!installation) throw notFound('Integration installation on this site');
      await requireSite(ctx, installation.organizationId, context.siteId, 'admin', "render this site installation's configuration");
      if (installation.status === 'paused') throw notFound('Integration installation on this site');
      return { installationId: installation.installationId, siteId: context.siteId };
    }
    default:
      throw badRequest(
        `context.type ${context.type} is not rendered by this service (document, configuration_space, configuration_site, configuration_account)`,
      );
  }
}

export async function renderIntegrationUI(ctx: Ctx, integrationName: string, request: RenderRequest): Promise<Rendered> {
  if (!(await findIntegration(ctx.em, integrationName))) throw notFound('Integration');
  const about = await renderTarget(ctx, integrationName, request.context);
  const target = await dispatchTarget(
    ctx.em,
    { integrationName, ...about },
    { publicUrl: ctx.deps.config.publicUrl, secrets: ctx.deps.secrets, tokenTtlMs: RENDER_TOKEN_TTL_MS, reuse: true },
  );
  if (!target) throw notFound('Integration installation');
  const member = !ctx.caller.visitor && !ctx.caller.siteLookup && !ctx.caller.installation;
  const event = {
    type: 'ui_render',
    eventId: newId(),
    installationId: about.installationId,
    ...(about.spaceId ? { spaceId: about.spaceId } : {}),
    ...(about.siteId ? { siteId: about.siteId } : {}),
    ...(member ? { auth: { userId: ctx.caller.user.id } } : {}),
    componentId: request.componentId,
    props: request.props,
    ...(request.state ? { state: request.state } : {}),
    context: request.context,
    ...(request.action ? { action: request.action } : {}),
  };
  const answer = await dispatchForRequest(
    ctx.deps.integrationSandbox(),
    target,
    event,
    `The integration ${integrationName} could not render`,
  );
  const verdict = renderVerdict(answer.status, answer.headers['content-type'], answer.body);
  if (verdict.kind === 'refused')
    throw new HttpError(verdict.status, `The integration ${integrationName} refused to render: ${verdict.message}`);
  if (verdict.kind === 'failed') throw new HttpError(502, `The integration ${integrationName} could not render: ${verdict.message}`);
  return { body: verdict.body, ...(answer.headers['cache-control'] ? { cacheControl: answer.headers['cache-control'] } : {}) };
}
