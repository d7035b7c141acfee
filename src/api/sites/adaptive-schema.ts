import type { Static } from 'typebox';
import { siteById, updateSite as updateSiteRow } from '../../db/sites.ts';
import { adaptiveSchemaProblem } from '../../domain/sites/adaptive.ts';
import type { Ctx } from '../context.ts';
import { badRequest } from '../errors.ts';
import { presentAdaptiveSchema } from './present.ts';
import type { AdaptiveSchemaBody } from './schemas.ts';
import { requireSite } from './site-access.ts';

/** The adaptive schema of a site: the visitor claims its conditions may use. */

export async function getAdaptiveSchema(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  return presentAdaptiveSchema(site);
}

export async function putAdaptiveSchema(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof AdaptiveSchemaBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'change the adaptive schema of this site');
  const problem = adaptiveSchemaProblem(body.jsonSchema);
  if (problem) throw badRequest(problem);
  await updateSiteRow(ctx.em, site.id, { adaptive_schema: body.jsonSchema, adaptive_schema_updated_at: new Date() });
  return presentAdaptiveSchema((await siteById(ctx.em, organizationId, site.id))!);
}
