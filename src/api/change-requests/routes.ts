import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { sql } from '../../db/sql.ts';
import { newId } from '../../domain/ids.ts';
import { LocalBlobStore } from '../../lib/blob-store.ts';
import { runChangeRequestJob } from '../../temporal/change-request-merge.ts';
import { loadSpace, requireRole } from '../access.ts';
import { findChangeRequest, type ChangeRequestRow } from '../content/target.ts';
import { presentFile } from '../content/present.ts';
import { badRequest, conflict, forbidden, notFound, unavailable } from '../errors.ts';
import { decodeCursor, encodeCursor } from '../../domain/cursor.ts';
import { DEFAULT_LIMIT } from '../pagination.ts';
import { errors } from '../schemas.ts';
import { presentChangeRequest, presentChangeRequests, presentContentChanges } from './present.ts';
import {
  ChangeRequestParams, ContentChangesBody, ContentChangesQuery, CreateChangeRequestBody, ListChangeRequestsQuery, SpaceParams,
  UpdateChangeRequestBody,
} from './schemas.ts';
import { applyContentChanges, assertEditable } from './service.ts';

type Params = { spaceId: string; changeRequestId: string };
const JOB_WAIT_MS = 60_000;

export async function changeRequestRoutes(app: FastifyInstance) {
  const { deps } = app;
  const { publicUrl } = deps.config;
  const blobs = new LocalBlobStore(deps.config.blobDir);
  const tags = ['change requests'];

  app.get('/v1/spaces/:spaceId/change-requests', {
    schema: { tags, summary: 'List change requests', params: SpaceParams, querystring: ListChangeRequestsQuery, response: errors(404) },
  }, async (request) => {
    const { em, caller } = request;
    const query = request.query as Static<typeof ListChangeRequestsQuery>;
    const { space } = await loadSpace(em, caller, (request.params as { spaceId: string }).spaceId);
    const status = query.status ?? 'open';
    const limit = query.limit ?? DEFAULT_LIMIT;
    let after: [string, string] | null = null;
    if (query.page !== undefined) {
      const values = decodeCursor(query.page, ['date', 'string']);
      if (!values) throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
      after = values as [string, string];
    }
    const filters = 'space_id = ? and status = ? and (?::text is null or created_by = ?)';
    const params = [space.id, status, query.contributor ?? null, query.contributor ?? null];
    const [rows, total] = await Promise.all([
      sql<ChangeRequestRow>(
        em,
        `select * from change_request where ${filters} and (?::timestamptz is null or (created_at, id) < (?::timestamptz, ?))
          order by created_at desc, id desc limit ?`,
        [...params, after?.[0] ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      ),
      sql<{ n: string }>(em, `select count(*) as n from change_request where ${filters}`, params),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: await presentChangeRequests(em, publicUrl, page),
      count: Number(total[0].n),
      ...(rows.length > limit ? { next: { page: encodeCursor([new Date(last.created_at).toISOString(), last.id]) } } : {}),
    };
  });

  app.post('/v1/spaces/:spaceId/change-requests', {
    schema: { tags, summary: 'Create a change request from the current content', params: SpaceParams, body: CreateChangeRequestBody, response: errors(403, 404) },
  }, async (request, reply) => {
    const { em, caller } = request;
    const body = request.body as Static<typeof CreateChangeRequestBody>;
    const { space, role } = await loadSpace(em, caller, (request.params as { spaceId: string }).spaceId);
    requireRole(role, 'edit', 'create change requests in this space');
    if (space.editMode === 'locked') throw forbidden('The space is locked: unlock it (editMode "live") to create change requests');
    const row = await em.transactional(async (tx) => {
      // The counter row lock makes numbers gapless and unique under concurrent creation.
      const seq = await sql<{ n: number; revision_id: string }>(
        tx,
        'update space set change_request_seq = change_request_seq + 1 where id = ? returning change_request_seq as n, revision_id',
        [space.id],
      );
      const now = new Date();
      const created = await sql<ChangeRequestRow>(
        tx,
        `insert into change_request (id, space_id, number, status, subject, created_by, created_at, updated_at, revision_id, revision_initial)
         values (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?) returning *`,
        [newId(), space.id, seq[0].n, body.subject ?? '', caller.user.id, now, now, seq[0].revision_id, seq[0].revision_id],
      );
      return created[0];
    });
    return reply.status(201).send(await presentChangeRequest(em, publicUrl, row));
  });

  app.get('/v1/spaces/:spaceId/change-requests/:changeRequestId', {
    schema: { tags, summary: 'Get a change request by id or number', params: ChangeRequestParams, response: errors(404) },
  }, async (request) => {
    const { em, caller } = request;
    const { spaceId, changeRequestId } = request.params as Params;
    const { space } = await loadSpace(em, caller, spaceId);
    return presentChangeRequest(em, publicUrl, await findChangeRequest(request, space.id, changeRequestId));
  });

  app.patch('/v1/spaces/:spaceId/change-requests/:changeRequestId', {
    schema: { tags, summary: 'Update the subject or status', params: ChangeRequestParams, body: UpdateChangeRequestBody, response: errors(403, 404, 409) },
  }, async (request) => {
    const { em, caller } = request;
    const body = request.body as Static<typeof UpdateChangeRequestBody>;
    const { spaceId, changeRequestId } = request.params as Params;
    const { space, role } = await loadSpace(em, caller, spaceId);
    const cr = await findChangeRequest(request, space.id, changeRequestId);
    if (!(cr.created_by === caller.user.id && role !== null && role !== 'read' && role !== 'comment')) requireRole(role, 'review', 'update this change request');
    if (cr.status === 'merged') throw conflict(`Change request #${cr.number} is merged and cannot change`);
    const updated = await sql<ChangeRequestRow>(
      em,
      'update change_request set subject = coalesce(?, subject), status = coalesce(?, status), updated_at = ? where id = ? returning *',
      [body.subject ?? null, body.status ?? null, new Date(), cr.id],
    );
    return presentChangeRequest(em, publicUrl, updated[0]);
  });

  app.post('/v1/spaces/:spaceId/change-requests/:changeRequestId/content', {
    schema: { tags, summary: 'Apply a batch of up to 50 content operations as one new revision', params: ChangeRequestParams, querystring: ContentChangesQuery, body: ContentChangesBody, response: errors(403, 404, 409) },
  }, async (request) => {
    const { em, caller } = request;
    const { spaceId, changeRequestId } = request.params as Params;
    const { space, role } = await loadSpace(em, caller, spaceId);
    requireRole(role, 'edit', 'edit this change request');
    const cr = await findChangeRequest(request, space.id, changeRequestId);
    assertEditable(cr, space.editMode, 'edit its content');
    const result = await applyContentChanges(em, blobs, space.id, cr.id, request.body as Static<typeof ContentChangesBody>, deps.config.fetch);
    const changeRequest = await presentChangeRequest(em, publicUrl, result.changeRequest);
    if ((request.query as { compat?: boolean }).compat !== false) return changeRequest;
    const base = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    return {
      changeRequest,
      changes: presentContentChanges(result.changes, `${publicUrl}${base}`),
      insertedFiles: result.insertedFiles.map((f) => presentFile(f, { publicUrl, spaceId: space.id, metadata: true, base })),
    };
  });

  for (const kind of ['merge', 'update'] as const) {
    app.post(`/v1/spaces/:spaceId/change-requests/:changeRequestId/${kind}`, {
      schema: {
        tags,
        summary: kind === 'merge' ? 'Merge the change request into the space' : 'Pull the space content into the change request',
        params: ChangeRequestParams,
        response: errors(403, 404, 409),
      },
    }, async (request) => {
      const { em, caller } = request;
      const { spaceId, changeRequestId } = request.params as Params;
      const { space, role } = await loadSpace(em, caller, spaceId);
      requireRole(role, kind === 'merge' ? 'review' : 'edit', kind === 'merge' ? 'merge change requests' : 'update this change request');
      const cr = await findChangeRequest(request, space.id, changeRequestId);
      if (!(kind === 'merge' && cr.status === 'merged')) assertEditable(cr, space.editMode, kind === 'merge' ? 'merge it' : 'update it');
      const job = runChangeRequestJob(deps.temporal, deps.config.temporalTaskQueue, kind, {
        spaceId: space.id,
        changeRequestId: cr.id,
        userId: caller.user.id,
        organizationId: space.organizationId,
      });
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        job,
        new Promise<never>((_, fail) => {
          timer = setTimeout(() => fail(unavailable(`The ${kind} is queued but did not finish within ${JOB_WAIT_MS / 1000} s; ask again for its result`)), JOB_WAIT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      if (outcome.result === 'refused') {
        if (outcome.reason === 'not-found') throw notFound('Change request');
        if (outcome.reason === 'locked') throw forbidden('The space is locked: unlock it (editMode "live") first');
        throw conflict(`Change request #${cr.number} is ${outcome.reason}`);
      }
      return { revision: outcome.revision, result: outcome.result };
    });
  }
}
