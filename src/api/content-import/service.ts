import { WorkflowFailedError } from '@temporalio/client';
import type { Static } from 'typebox';
import type { ContentImportOutcome } from '../../activities/content-import.ts';
import { findChangeRequestRef } from '../../db/content-import.ts';
import { sealContext, unsupportedReason, type SupportedSource } from '../../domain/content-import/sources.ts';
import { newId } from '../../domain/ids.ts';
import { redactUrl } from '../../lib/guarded-fetch.ts';
import { runContentImport } from '../../temporal/content-import.ts';
import { loadSpace, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, conflict, forbidden, HttpError, notFound, unavailable } from '../errors.ts';
import { presentImportResult } from './present.ts';
import type { ImportContentBody } from './schemas.ts';

/** The rules of content import: who may import where, from what, and what the answer says. */

/** The source URL, checked: http(s) only. Credentials in it are sealed, never written to the job's history. */
async function sourceUrl(ctx: Ctx, spaceId: string, raw: string): Promise<{ url: string; sealedUrl?: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('body.url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`body.url must be an http or https URL, not ${url.protocol}`);
  if (url.username === '' && url.password === '') return { url: url.href };
  const box = await ctx.deps.secrets();
  return { url: redactUrl(url), sealedUrl: box.seal(url.href, sealContext(spaceId)) };
}

/** Where an import goes: the space's primary content, or one of its change requests (id or number). */
export interface ImportTarget {
  spaceId: string;
  changeRequestId: string | null;
}

/**
 * Imports content from `body.url` and waits for it (at most CONTENT_IMPORT_WAIT): the imported
 * pages are added to the target's content as one new revision (replacing the empty page a new
 * space starts with). Needs `edit`. A request that times out (503) can be sent again: it joins
 * the import still running.
 */
export async function importContent(ctx: Ctx, target: ImportTarget, body: Static<typeof ImportContentBody>) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, target.spaceId);
  const where = target.changeRequestId === null ? 'this space' : 'this change request';
  requireRole(role, 'edit', `import content into ${where}`);
  let changeRequestId: string | null = null;
  if (target.changeRequestId !== null) {
    const changeRequest = await findChangeRequestRef(ctx.em, space.id, target.changeRequestId);
    if (!changeRequest) throw notFound('Change request');
    if (changeRequest.status === 'merged' || changeRequest.status === 'archived') {
      throw conflict(`Change request #${changeRequest.number} is ${changeRequest.status}; its content cannot change`);
    }
    changeRequestId = changeRequest.id;
  }
  if (space.editMode === 'locked') throw forbidden('The space is locked: unlock it (editMode "live") to import content');
  const unsupported = unsupportedReason(body.source);
  if (unsupported !== null) throw badRequest(unsupported);
  const { url, sealedUrl } = await sourceUrl(ctx, space.id, body.url);

  const { config } = ctx.deps;
  let outcome: ContentImportOutcome;
  try {
    outcome = await runContentImport(
      ctx.deps.temporal,
      config.temporalHeavyTaskQueue,
      {
        spaceId: space.id,
        changeRequestId,
        source: body.source as SupportedSource,
        url,
        ...(sealedUrl !== undefined ? { sealedUrl } : {}),
        revisionId: newId(),
        userId: ctx.caller.user.id,
      },
      { organizationId: space.organizationId, waitMs: config.contentImport.waitMs },
    );
  } catch (error) {
    // Still running after CONTENT_IMPORT_WAIT (503, saying to ask again), or another refusal.
    if (error instanceof HttpError) throw error;
    if (error instanceof WorkflowFailedError) {
      // Retries ran out on the worker (database or blob store trouble): nothing was imported.
      throw Object.assign(unavailable('The import failed on the worker and nothing was imported; try again shortly'), { cause: error });
    }
    throw Object.assign(unavailable('The job service is unavailable; nothing was imported. Try again shortly.'), { cause: error });
  }
  switch (outcome.status) {
    case 'imported':
      return presentImportResult(outcome);
    case 'failed':
      throw badRequest(`Could not import from ${url} (${outcome.code}): ${outcome.message}`);
    case 'refused':
      if (outcome.reason === 'not-found') throw notFound(changeRequestId === null ? 'Space' : 'Change request');
      if (outcome.reason === 'locked') throw forbidden('The space is locked: unlock it (editMode "live") to import content');
      throw conflict(`The change request is ${outcome.reason}; its content cannot change`);
  }
}
