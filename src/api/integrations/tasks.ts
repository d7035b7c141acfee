import type { Static } from 'typebox';
import { findIntegration } from '../../db/integrations.ts';
import { newId } from '../../domain/ids.ts';
import { queueIntegrationTask } from '../../temporal/integration-task.ts';
import { requireOrganization } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import type { QueueTaskBody } from './schemas.ts';

/** The largest task payload queued (JSON): it travels in the job's history. */
export const MAX_TASK_BYTES = 64 * 1024;

/**
 * `POST /v1/integrations/{integrationName}/tasks` (queueIntegrationTask): the `integration-task`
 * job waits `schedule` seconds (at most a day), then delivers GitBook's `task` event to the
 * script. Queued by the integration itself, with a token acting as one of its installations (the
 * task then runs with that installation's environment), or by an admin of the organization that
 * owns it (with the integration's own). A token of another integration's installation is 404.
 */
export async function queueTask(ctx: Ctx, integrationName: string, body: Static<typeof QueueTaskBody>): Promise<void> {
  const integration = await findIntegration(ctx.em, integrationName);
  if (!integration) throw notFound('Integration');
  const grant = ctx.caller.installation;
  let organizationId: string;
  if (grant) {
    if (grant.integrationName !== integrationName) throw notFound('Integration');
    organizationId = grant.organizationId;
  } else {
    organizationId = (await requireOrganization(ctx, integration.ownerId, 'admin', "queue this integration's tasks")).organization.id;
  }
  const bytes = Buffer.byteLength(JSON.stringify(body.task));
  if (bytes > MAX_TASK_BYTES) throw badRequest(`task is ${bytes} bytes of JSON; at most ${MAX_TASK_BYTES}`);
  await queueIntegrationTask(ctx.deps.temporal, ctx.deps.config.temporalTaskQueue, {
    taskId: newId(),
    integrationName,
    ...(grant ? { installationId: grant.installationId } : {}),
    task: body.task,
    scheduleSeconds: body.schedule ?? 0,
    organizationId,
  });
}
