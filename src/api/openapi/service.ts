import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { OpenApiSpec, OpenApiSpecText } from '../../db/openapi-entities.ts';
import type { Em } from '../../db/orm.ts';
import { newId } from '../../domain/ids.ts';
import { redactUrl } from '../../lib/guarded-fetch.ts';
import { startOpenApiProcessing } from '../../temporal/openapi-processing.ts';
import { deleteRefreshSchedule, upsertRefreshSchedule } from '../../temporal/openapi-refresh-schedule.ts';
import type { AppDeps, Caller } from '../context.ts';
import { badRequest, conflict, unavailable } from '../errors.ts';

/** OpenAPI spec operations that touch more than one row or reach Temporal. */

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

/**
 * Creates a spec, or (mode `upsert`) replaces the source of an existing one, then starts its
 * processing and creates, updates or removes its refresh schedule. Every source change bumps the
 * source generation, so runs of an older source record nothing.
 */
export async function saveSpec(
  deps: AppDeps,
  em: Em,
  caller: Caller,
  organizationId: string,
  slug: string,
  source: SpecSourceInput,
  mode: 'create' | 'upsert',
): Promise<{ spec: OpenApiSpec; created: boolean }> {
  let saved: { spec: OpenApiSpec; created: boolean } | undefined;
  for (let attempt = 0; saved === undefined; attempt++) {
    try {
      saved = await em.fork().transactional(async (tx) => {
        const now = new Date();
        const existing = await tx.findOne(OpenApiSpec, { organizationId, slug }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (existing && mode === 'create') throw conflict(`An OpenAPI spec with slug "${slug}" already exists in this organization`);
        const textId = 'text' in source ? newId() : null;
        let spec: OpenApiSpec;
        if (existing) {
          await tx.nativeDelete(OpenApiSpecText, { specId: existing.id });
          existing.sourceUrl = 'url' in source ? source.url : null;
          existing.sourceTextId = textId;
          existing.sourceGeneration += 1;
          existing.processingState = 'pending';
          existing.updatedAt = now;
          spec = existing;
        } else {
          spec = tx.create(OpenApiSpec, {
            id: newId(),
            organizationId,
            slug,
            sourceUrl: 'url' in source ? source.url : null,
            sourceTextId: textId,
            sourceGeneration: 1,
            processingState: 'pending',
            lastVersionId: null,
            lastProcessedAt: null,
            lastProcessErrorCode: null,
            lastProcessErrors: null,
            createdAt: now,
            updatedAt: now,
          });
        }
        await tx.flush();
        if ('text' in source) {
          tx.create(OpenApiSpecText, { id: textId!, specId: spec.id, text: source.text, createdAt: now });
          await tx.flush();
        }
        return { spec, created: !existing };
      });
    } catch (error) {
      // A concurrent create of the same slug won: a create is a conflict, an upsert updates it.
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      if (mode === 'create') throw conflict(`An OpenAPI spec with slug "${slug}" already exists in this organization`);
      if (attempt >= 2) throw error;
    }
  }

  const { spec } = saved;
  const { temporal, config } = deps;
  try {
    await startOpenApiProcessing(
      temporal,
      config.temporalTaskQueue,
      { specId: spec.id, organizationId, generation: spec.sourceGeneration },
      caller.user.id,
    );
    if (spec.sourceUrl) {
      await upsertRefreshSchedule(temporal, {
        specId: spec.id,
        organizationId,
        slug,
        shownUrl: redactUrl(spec.sourceUrl),
        intervalMs: config.openapiRefreshIntervalMs,
        taskQueue: config.temporalTaskQueue,
      });
    } else {
      await deleteRefreshSchedule(temporal, spec.id);
    }
  } catch (error) {
    throw unavailable(`The OpenAPI spec was saved but its processing could not be started (${(error as Error).message}); send the PUT again`);
  }
  return saved;
}

/**
 * Deletes a spec with its versions and texts (foreign keys cascade), then its refresh schedule.
 * A schedule that could not be removed removes itself the next time it fires.
 */
export async function deleteSpec(deps: AppDeps, em: Em, spec: OpenApiSpec): Promise<void> {
  await em.nativeDelete(OpenApiSpec, { id: spec.id });
  try {
    await deleteRefreshSchedule(deps.temporal, spec.id);
  } catch {
    // Left to the schedule's own next run, which finds the spec gone and deletes the schedule.
  }
}
