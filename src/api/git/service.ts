import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Static } from 'typebox';
import type { Config } from '../../config.ts';
import {
  hasGitSyncTarget,
  insertGitSyncRequest,
  loadGitSync,
  loadGitSyncRequest,
  markGitSyncRequestsSignalled,
  recordDelivery,
  requestSecretContext,
  saveGitSyncTarget,
  saveWebhook,
  unsignalledGitSyncRequests,
  webhookTarget,
  type GitSyncParams,
  type UnsignalledGitSyncRequest,
} from '../../db/git-sync.ts';
import { forkEm, transaction, type Em } from '../../db/orm.ts';
import { describeRepository } from '../../domain/git/errors.ts';
import { newId } from '../../domain/ids.ts';
import { redactUrl } from '../../lib/guarded-fetch.ts';
import { enqueueGitSync } from '../../temporal/git-sync.ts';
import { loadSpace, requireRole } from '../access.ts';
import type { AppDeps, Ctx } from '../context.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../errors.ts';
import { presentGitInfo } from './present.ts';
import type { ExportGitBody, ImportGitBody, WebhookBody, WebhookHeaders } from './schemas.ts';

/**
 * Git Sync: imports and exports are recorded as requests (parameters without credentials; the
 * credentials sealed with the secrets key, bound to the request, erased once it has run) and
 * handed to the space's `git-sync/<spaceId>` workflow, which applies them one at a time in
 * timestamp order. The same request sent twice (same push: same URL, ref, timestamp and options)
 * is recorded once.
 */

const webhookUrl = (config: Config, spaceId: string) => `${config.publicUrl}/hooks/git/${spaceId}`;

/** The URL without credentials, and the credentials it carried (null when none). */
function splitRemote(raw: string): { url: string; credentials: { username: string; password: string } | null } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`url is not a valid URL: ${redactUrl(raw)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('url must be an http: or https: URL of the repository');
  const credentials =
    url.username || url.password ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : null;
  url.username = '';
  url.password = '';
  url.hash = '';
  return { url: url.href, credentials };
}

interface NewRequest {
  spaceId: string;
  organizationId: string;
  kind: 'import' | 'export';
  rawUrl: string;
  params: Omit<GitSyncParams, 'url'>;
  timestamp: string | undefined;
  requestedBy: string | null;
  integration: string | null;
  /** A stable id (webhook delivery); otherwise derived from the request when it has a timestamp. */
  id?: string;
  /** A webhook delivery id: recorded with the request, in one transaction; seen before, nothing new is recorded. */
  delivery?: string;
  credentials?: { username: string; password: string } | null;
}

/**
 * Records a request and signals the space's workflow after the answer; returns the request id,
 * and whether it is new (false: its webhook delivery was seen before; a request of it still queued
 * is signalled again).
 */
async function submit(deps: AppDeps, em: Em, log: FastifyBaseLogger, input: NewRequest): Promise<{ id: string; fresh: boolean }> {
  const { url, credentials: fromUrl } = splitRemote(input.rawUrl);
  const credentials = fromUrl ?? input.credentials ?? null;
  const params: GitSyncParams = { ...input.params, url };
  const requestedAt = input.timestamp ? new Date(input.timestamp) : new Date();
  const id =
    input.id ??
    (input.timestamp
      ? `req-${createHash('sha256')
          .update(JSON.stringify([input.spaceId, input.kind, params, requestedAt.toISOString()]))
          .digest('hex')
          .slice(0, 32)}`
      : `req-${newId()}`);
  const sealed = credentials ? (await deps.secrets()).seal(JSON.stringify(credentials), requestSecretContext(id)) : null;
  const { repoName, provider } = describeRepository(url);
  const target = {
    provider: input.params.provider ?? provider,
    url,
    ref: input.params.ref,
    repoName,
    integration: input.integration,
    projectDirectory: input.params.repoProjectDirectory ?? null,
  };
  const request = {
    id,
    spaceId: input.spaceId,
    kind: input.kind,
    requestedAt,
    params,
    credentials: sealed,
    requestedBy: input.requestedBy,
  };
  // fresh: a new delivery; inserted: a new request row (queued as it was written, so not read back).
  // A request without a delivery to record, for the target the space already has, is one insert, in
  // a transaction of its own so that the request's audit event commits with it, before the answer
  // and before the signal that follows it.
  const { fresh, inserted } =
    input.delivery === undefined && (await hasGitSyncTarget(em, input.spaceId, target))
      ? { fresh: true, inserted: await transaction(em, (tx) => insertGitSyncRequest(tx, request)) }
      : await transaction(em, async (tx) => {
          // A second delivery of the same push waits here for the first one's transaction, then finds it.
          if (input.delivery !== undefined && !(await recordDelivery(tx, input.spaceId, input.delivery)))
            return { fresh: false, inserted: false };
          await saveGitSyncTarget(tx, input.spaceId, target);
          return { fresh: true, inserted: await insertGitSyncRequest(tx, request) };
        });
  // A request already finished is not signalled again; a queued one is (its first signal may have failed).
  const stored = inserted ? { state: 'queued', requested_at: requestedAt } : await loadGitSyncRequest(em, id);
  if (stored?.state !== 'queued') return { id, fresh };
  // The row is committed: the request is durable, and answered now. The signal that hands it to the
  // space's workflow follows the answer; one that fails is sent again by resendGitSyncRequests.
  const signal = {
    requestId: id,
    spaceId: input.spaceId,
    organizationId: input.organizationId,
    kind: input.kind,
    requestedAt: new Date(stored.requested_at),
    requestedBy: input.requestedBy,
  };
  if (!deps.background.run(() => handOver(deps, log, [signal])))
    log.warn(
      { requestId: id, resendAfterMs: deps.config.gitSyncResendAfterMs },
      'git sync: too many signals on their way; the request is sent by the resend',
    );
  return { id, fresh };
}

/**
 * Signals each request to its space's workflow (signal-with-start), in order, and notes the ones
 * that arrived. Stops at the first failure: the job service is unreachable, and the rest wait for
 * the next resend like this one.
 */
async function handOver(deps: AppDeps, log: FastifyBaseLogger, requests: UnsignalledGitSyncRequest[]): Promise<number> {
  const sent: string[] = [];
  try {
    for (const request of requests) {
      await enqueueGitSync(deps.temporal, deps.config.temporalTaskQueue, request);
      sent.push(request.requestId);
    }
  } catch (error) {
    log.warn(
      { err: error, requestId: requests[sent.length]!.requestId, resendAfterMs: deps.config.gitSyncResendAfterMs },
      'git sync: the request is recorded but the job service did not take it; it is sent again later',
    );
  }
  try {
    await markGitSyncRequestsSignalled(forkEm(deps.orm), sent);
  } catch (error) {
    // Not noted: sent again later, which the workflow ignores for a request it holds or has run.
    log.warn({ err: error, requests: sent.length }, 'git sync: could not note the requests signalled');
  }
  return sent.length;
}

/** Requests one resend signals at most; the rest wait for the next. */
const RESEND_BATCH = 100;

/**
 * Sends again the queued requests that have not reached their workflow within
 * GIT_SYNC_RESEND_AFTER of being recorded (the job service was down when they came, or the process
 * that answered them stopped before signalling). Every API process runs this on that period
 * (app.ts); two processes sending the same request is harmless: the workflow keeps one, and a
 * finished request never runs again. Answers how many were sent.
 */
export async function resendGitSyncRequests(deps: AppDeps, log: FastifyBaseLogger): Promise<number> {
  const waiting = await unsignalledGitSyncRequests(forkEm(deps.orm), deps.config.gitSyncResendAfterMs, RESEND_BATCH);
  if (waiting.length === 0) return 0;
  const sent = await handOver(deps, log, waiting);
  if (sent > 0) log.info({ sent, waiting: waiting.length }, 'git sync: recorded requests sent again to the job service');
  return sent;
}

async function syncableSpace(ctx: Ctx, spaceId: string) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireRole(role, 'edit', 'trigger a Git Sync of this space');
  return space;
}

const paramsOf = (body: Static<typeof ImportGitBody> | Static<typeof ExportGitBody>) => ({
  ref: body.ref,
  ...(body.repoCacheID !== undefined ? { repoCacheID: body.repoCacheID } : {}),
  ...(body.repoTreeURL !== undefined ? { repoTreeURL: body.repoTreeURL } : {}),
  ...(body.repoCommitURL !== undefined ? { repoCommitURL: body.repoCommitURL } : {}),
  ...(body.repoProjectDirectory !== undefined ? { repoProjectDirectory: body.repoProjectDirectory } : {}),
  ...(body.force !== undefined ? { force: body.force } : {}),
  ...(body.gitInfo?.provider ? { provider: body.gitInfo.provider } : {}),
});

/** Starts an import of `ref` into the space (or a standalone revision); answers at once. */
export async function importGit(ctx: Ctx, spaceId: string, body: Static<typeof ImportGitBody>): Promise<void> {
  const space = await syncableSpace(ctx, spaceId);
  if (space.editMode === 'locked' && body.standalone !== true)
    throw forbidden('The space is locked: unlock it (editMode "live") to import into it');
  await submit(ctx.deps, ctx.em, ctx.log, {
    spaceId: space.id,
    organizationId: space.organizationId,
    kind: 'import',
    rawUrl: body.url,
    timestamp: body.timestamp,
    params: { ...paramsOf(body), ...(body.standalone !== undefined ? { standalone: body.standalone } : {}) },
    requestedBy: ctx.caller.user.id,
    integration: null,
  });
}

/** Starts an export of the space's current content to `ref`; answers at once. */
export async function exportGit(ctx: Ctx, spaceId: string, body: Static<typeof ExportGitBody>): Promise<void> {
  const space = await syncableSpace(ctx, spaceId);
  await submit(ctx.deps, ctx.em, ctx.log, {
    spaceId: space.id,
    organizationId: space.organizationId,
    kind: 'export',
    rawUrl: body.url,
    timestamp: body.timestamp,
    params: { ...paramsOf(body), commitMessage: body.commitMessage },
    requestedBy: ctx.caller.user.id,
    integration: null,
  });
}

export async function getGitInfo(ctx: Ctx, spaceId: string) {
  const { space } = await loadSpace(ctx.em, ctx.caller, spaceId);
  const row = await loadGitSync(ctx.em, space.id);
  if (!row || (row.url === null && row.webhook_repository === null)) throw notFound('Git Sync of this space');
  return presentGitInfo(row, webhookUrl(ctx.deps.config, space.id));
}

/** Sets the repository, branch and secret of the space's push webhook (admins). */
export async function configureWebhook(ctx: Ctx, spaceId: string, body: Static<typeof WebhookBody>) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireRole(role, 'admin', 'set up the push webhook of this space');
  const { url, credentials } = splitRemote(body.url);
  const box = await ctx.deps.secrets();
  await saveWebhook(ctx.em, space.id, {
    provider: body.provider,
    repository: url,
    branch: body.branch,
    secret: box.seal(body.secret, `git-webhook:${space.id}`),
    credentials: credentials ? box.seal(JSON.stringify(credentials), `git-webhook-credentials:${space.id}`) : null,
  });
  return { provider: body.provider, repository: url, branch: body.branch, url: webhookUrl(ctx.deps.config, space.id) };
}

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

interface PushPayload {
  ref?: unknown;
  after?: unknown;
  checkout_sha?: unknown;
  head_commit?: { timestamp?: unknown } | null;
  commits?: { timestamp?: unknown }[];
}

/**
 * A push delivery from GitHub (X-Hub-Signature-256 over the raw body) or GitLab (X-Gitlab-Token).
 * Unknown spaces and bad signatures answer 404 and 401; other events and branches are ignored; a
 * delivery seen before (GitHub: the same signed body; GitLab: the same X-Gitlab-Event-UUID) starts
 * nothing new (`duplicate`), but sends its request to the job service again while it is still
 * queued (the first delivery's signal may not have arrived). The delivery and its request are
 * recorded in one transaction.
 */
export async function receivePush(
  deps: AppDeps,
  em: Em,
  log: FastifyBaseLogger,
  spaceId: string,
  headers: Static<typeof WebhookHeaders>,
  raw: Buffer,
) {
  const target = await webhookTarget(em, spaceId);
  if (!target) throw notFound('Webhook');
  const box = await deps.secrets();
  const secret = box.open(target.webhook_secret!, `git-webhook:${spaceId}`);
  let deliveryId: string | undefined;
  let event: string | undefined;
  if (target.webhook_provider === 'github') {
    const signature = headers['x-hub-signature-256'];
    const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    if (!signature || !sameSecret(signature, expected)) throw unauthorized('Invalid X-Hub-Signature-256');
    // The delivery is known by its signature, which names the signed body: X-GitHub-Delivery is not
    // signed, so a replay under a new one is still the same delivery.
    deliveryId = expected;
    event = headers['x-github-event'];
    if (event === 'ping') return { status: 'pong' };
    if (event !== 'push') return { status: 'ignored' };
  } else {
    const token = headers['x-gitlab-token'];
    if (!token || !sameSecret(token, secret)) throw unauthorized('Invalid X-Gitlab-Token');
    deliveryId = headers['x-gitlab-event-uuid'];
    event = headers['x-gitlab-event'];
    if (event !== 'Push Hook') return { status: 'ignored' };
  }
  let payload: PushPayload;
  try {
    payload = JSON.parse(raw.toString('utf8')) as PushPayload;
  } catch {
    throw badRequest('The delivery body is not JSON');
  }
  if (payload.ref !== `refs/heads/${target.webhook_branch}`) return { status: 'ignored' };
  const commit = typeof payload.after === 'string' ? payload.after : typeof payload.checkout_sha === 'string' ? payload.checkout_sha : '';
  if (/^0+$/.test(commit)) return { status: 'ignored' };
  deliveryId ??= `${target.webhook_provider}:${commit}`;
  const requestId = `hook-${createHash('sha256').update(`${spaceId}\n${deliveryId}`).digest('hex').slice(0, 32)}`;
  const stamp = payload.head_commit?.timestamp ?? payload.commits?.[payload.commits.length - 1]?.timestamp;
  const timestamp =
    typeof stamp === 'string' && !Number.isNaN(Date.parse(stamp)) ? new Date(stamp).toISOString() : new Date().toISOString();
  const credentials = target.webhook_credentials
    ? (JSON.parse(box.open(target.webhook_credentials, `git-webhook-credentials:${spaceId}`)) as { username: string; password: string })
    : null;
  const { fresh } = await submit(deps, em, log, {
    spaceId,
    organizationId: target.organization_id,
    kind: 'import',
    rawUrl: target.webhook_repository!,
    timestamp,
    params: { ref: `refs/heads/${target.webhook_branch}`, provider: target.webhook_provider! },
    requestedBy: null,
    integration: `${target.webhook_provider}-webhook`,
    credentials,
    id: requestId,
    delivery: deliveryId,
  });
  return fresh ? { status: 'accepted', requestId } : { status: 'duplicate' };
}
