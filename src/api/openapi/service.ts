import type { Static } from 'typebox';
import {
  deleteSpecBySlug,
  findSpec,
  findVersion,
  insertSpec,
  insertSpecText,
  lockSpec,
  replaceSpecSource,
  specListing,
  toSpec,
  toVersion,
  versionListing,
  type OpenApiSpec,
} from '../../db/openapi.ts';
import { forkEm, transaction } from '../../db/orm.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/roles.ts';
import { redactUrl } from '../../lib/guarded-fetch.ts';
import { startOpenApiProcessing } from '../../temporal/openapi-processing.ts';
import { deleteRefreshSchedule, upsertRefreshSchedule } from '../../temporal/openapi-refresh-schedule.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict, notFound, unavailable } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { urlsFor } from '../object-urls.ts';
import { presentContent, presentSpec, presentVersion } from './present.ts';
import type { CreateSpecBody, PutSpecBody, SpecParams } from './schemas.ts';

/** The rules of OpenAPI specs: organization roles, sources, and the processing jobs each change starts. */

type SpecRef = Static<typeof SpecParams>;
type Query = Static<typeof ListQuery>;

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

/** A spec of an organization the caller may read: 404 for non-members and unknown slugs. */
async function loadSpec(ctx: Ctx, ref: SpecRef): Promise<{ spec: OpenApiSpec; role: Role | null }> {
  const { role } = await requireOrganization(ctx, ref.organizationId, 'read', 'view OpenAPI specs');
  const spec = await findSpec(ctx.em, ref.organizationId, ref.specSlug);
  if (!spec) throw notFound('OpenAPI spec');
  return { spec, role };
}

/**
 * The spec as a reader of the content that references it sees it: members with a role, and the
 * visitors of a published site of the organization (its pages embed the organization's specs),
 * for the content of the latest version only. 404 for anyone else.
 */
async function specReader(ctx: Ctx, ref: SpecRef, versionId: string | 'latest'): Promise<{ spec: OpenApiSpec }> {
  const visitor = ctx.caller.visitor;
  if (!visitor) return loadSpec(ctx, ref);
  if (versionId !== 'latest' || visitor.organizationId !== ref.organizationId) throw notFound('OpenAPI spec');
  const spec = await findSpec(ctx.em, ref.organizationId, ref.specSlug);
  if (!spec) throw notFound('OpenAPI spec');
  return { spec };
}

async function loadVersion(ctx: Ctx, spec: OpenApiSpec, versionId: string | 'latest') {
  const id = versionId === 'latest' ? spec.lastVersionId : versionId;
  const version = id ? await findVersion(ctx.em, spec.id, id, false) : undefined;
  if (!version) throw notFound('OpenAPI spec version');
  return version;
}

export async function listSpecs(ctx: Ctx, organizationId: string, query: Query) {
  const { role } = await requireOrganization(ctx, organizationId, 'read', 'view OpenAPI specs');
  const urls = urlsOf(ctx);
  return paginate(ctx.em, specListing(ctx.em, organizationId), query, (rows) => rows.map((s) => presentSpec(toSpec(s), role, urls)));
}

export async function createSpec(ctx: Ctx, organizationId: string, body: Static<typeof CreateSpecBody>, maxTextBytes: number) {
  const { role } = await requireOrganization(ctx, organizationId, 'create', 'create OpenAPI specs');
  const source = readSource(body.source, maxTextBytes);
  const { spec } = await saveSpec(ctx, organizationId, body.slug, source, 'create');
  return presentSpec(spec, role, urlsOf(ctx));
}

/** Creates the spec of this slug or replaces its source; `created` says which (201 or 200). */
export async function putSpec(ctx: Ctx, ref: SpecRef, body: Static<typeof PutSpecBody>, maxTextBytes: number) {
  const { role } = await requireOrganization(ctx, ref.organizationId, 'create', 'create or update OpenAPI specs');
  const source = readSource(body.source, maxTextBytes);
  const { spec, created } = await saveSpec(ctx, ref.organizationId, ref.specSlug, source, 'upsert');
  return { spec: presentSpec(spec, role, urlsOf(ctx)), created };
}

export async function getSpec(ctx: Ctx, ref: SpecRef) {
  const { spec, role } = await loadSpec(ctx, ref);
  return presentSpec(spec, role, urlsOf(ctx));
}

/**
 * Deletes a spec with its versions and texts (foreign keys cascade), then its refresh schedule;
 * false when there was no such spec. A schedule that could not be removed removes itself the
 * next time it fires.
 */
export async function deleteSpec(ctx: Ctx, ref: SpecRef): Promise<boolean> {
  await requireOrganization(ctx, ref.organizationId, 'create', 'delete OpenAPI specs');
  const specId = await deleteSpecBySlug(ctx.em, ref.organizationId, ref.specSlug);
  if (specId === undefined) return false;
  try {
    await deleteRefreshSchedule(ctx.deps.temporal, specId);
  } catch {
    // Left to the schedule's own next run, which finds the spec gone and deletes the schedule.
  }
  return true;
}

export async function listVersions(ctx: Ctx, ref: SpecRef, query: Query) {
  const { spec } = await loadSpec(ctx, ref);
  const urls = urlsOf(ctx);
  return paginate(ctx.em, versionListing(ctx.em, spec.id), query, (rows) => rows.map((v) => presentVersion(spec, toVersion(v), urls)));
}

export async function getVersion(ctx: Ctx, ref: SpecRef, versionId: string | 'latest') {
  const { spec } = await loadSpec(ctx, ref);
  return presentVersion(spec, await loadVersion(ctx, spec, versionId), urlsOf(ctx));
}

export async function getVersionContent(ctx: Ctx, ref: SpecRef, versionId: string | 'latest') {
  const { spec } = await specReader(ctx, ref, versionId);
  const id = versionId === 'latest' ? spec.lastVersionId : versionId;
  const version = id ? await findVersion(ctx.em, spec.id, id, true) : undefined;
  if (!version) throw notFound('OpenAPI spec version');
  return presentContent(spec, version, version.filesystem, urlsOf(ctx));
}

export type SpecSourceInput = { url: string } | { text: string };

/** Checks a `source` body: exactly one of `url` (http or https) and `text` (within the size limit). */
export function readSource(source: { url?: string; text?: string }, maxTextBytes: number): SpecSourceInput {
  if ((source.url === undefined) === (source.text === undefined)) {
    throw badRequest('body.source must have either `url` or `text` (not both)');
  }
  if (source.url !== undefined) {
    let url: URL;
    try {
      url = new URL(source.url);
    } catch {
      throw badRequest('body.source.url must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest('body.source.url must be an http or https URL');
    return { url: source.url };
  }
  if (Buffer.byteLength(source.text!, 'utf8') > maxTextBytes) {
    throw badRequest(`body.source.text must be at most ${maxTextBytes} bytes (FETCH_MAX_BYTES)`);
  }
  return { text: source.text! };
}

const taken = (slug: string) => conflict(`An OpenAPI spec with slug "${slug}" already exists in this organization`);

/**
 * Creates a spec, or (mode `upsert`) replaces the source of an existing one, then starts its
 * processing and creates, updates or removes its refresh schedule. Every source change bumps the
 * source generation, so runs of an older source record nothing.
 */
async function saveSpec(
  ctx: Ctx,
  organizationId: string,
  slug: string,
  source: SpecSourceInput,
  mode: 'create' | 'upsert',
): Promise<{ spec: OpenApiSpec; created: boolean }> {
  let saved: { spec: OpenApiSpec; created: boolean } | undefined;
  for (let attempt = 0; saved === undefined; attempt++) {
    saved = await transaction(forkEm(ctx.deps.orm), async (tx) => {
      const at = new Date();
      const existing = await lockSpec(tx, organizationId, slug);
      if (existing && mode === 'create') throw taken(slug);
      const textId = 'text' in source ? newId() : null;
      const columns = { sourceUrl: 'url' in source ? source.url : null, sourceTextId: textId };
      const spec = existing
        ? await replaceSpecSource(tx, existing.id, columns, at)
        : await insertSpec(tx, { id: newId(), organizationId, slug, ...columns, at });
      // A concurrent create of the same slug won: a create is a conflict, an upsert updates it (next attempt).
      if (!spec) {
        if (mode === 'create') throw taken(slug);
        if (attempt >= 2) throw unavailable('The OpenAPI spec is being changed by other requests at the same time; send the PUT again');
        return undefined;
      }
      if ('text' in source) await insertSpecText(tx, { id: textId!, specId: spec.id, text: source.text, at });
      return { spec, created: !existing };
    });
  }

  const { spec } = saved;
  const { temporal, config } = ctx.deps;
  try {
    await startOpenApiProcessing(
      temporal,
      config.temporalHeavyTaskQueue,
      { specId: spec.id, organizationId, generation: spec.sourceGeneration },
      ctx.caller.user.id,
    );
    if (spec.sourceUrl) {
      await upsertRefreshSchedule(temporal, {
        specId: spec.id,
        organizationId,
        slug,
        shownUrl: redactUrl(spec.sourceUrl),
        intervalMs: config.openapiRefreshIntervalMs,
        taskQueue: config.temporalHeavyTaskQueue,
      });
    } else {
      await deleteRefreshSchedule(temporal, spec.id);
    }
  } catch (error) {
    throw unavailable(
      `The OpenAPI spec was saved but its processing could not be started (${(error as Error).message}); send the PUT again`,
    );
  }
  return saved;
}
