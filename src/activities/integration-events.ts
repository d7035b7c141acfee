import { ApplicationFailure } from '@temporalio/common';
import { dispatchTarget, type DispatchTarget } from '../api/integrations/environment.ts';
import { purgeExpiredInstallationTokens } from '../db/integrations.ts';
import { forkEm, type Orm } from '../db/orm.ts';
import { beat, heartbeating } from '../lib/heartbeat.ts';
import {
  failIntegrationEvent,
  findIntegrationEventById,
  installationsWithStalePendingEvents,
  pendingIntegrationEvents,
  recordDelivery,
  type IntegrationEventRow,
} from '../db/integration-events.ts';
import { deliveryError, deliveryVerdict, eventLog } from '../domain/integration-events.ts';
import type { SecretBox } from '../lib/secrets.ts';
import { IntegrationSandboxError, type IntegrationSandbox } from '../lib/integration-sandbox.ts';
import { announceIntegrationEventsFromActivity } from '../temporal/integration-events.ts';

/** What a delivery needs besides the event: the script to run and the environment it runs with. */
export type DeliveryTarget = DispatchTarget;

export interface IntegrationEventsDeps {
  sandbox: IntegrationSandbox;
  /**
   * The installation's script and environment for an event (undefined: the installation or its
   * integration is gone, and the event fails).
   */
  target: (event: IntegrationEventRow) => Promise<DeliveryTarget | undefined>;
  /** Hears the lines the sandbox's scripts write, for an event's trace (the sandbox's `onLog`). */
  logs: EventLogTap;
}

/** Routes the lines an integration's scripts write to the deliveries of that integration under way. */
export class EventLogTap {
  private readonly listening = new Map<string, Set<(line: { stream: 'stdout' | 'stderr'; text: string }) => void>>();

  /** The sandbox's `onLog`. */
  hear = (line: { integration: string; stream: 'stdout' | 'stderr'; text: string }) => {
    for (const listener of this.listening.get(line.integration) ?? []) listener(line);
  };

  /** Runs `work` while collecting what `integration`'s scripts write (those of other installations running at the same moment too). */
  async during<T>(
    integration: string,
    work: () => Promise<T>,
  ): Promise<{ result: T; lines: { stream: 'stdout' | 'stderr'; text: string; at: Date }[] }> {
    const lines: { stream: 'stdout' | 'stderr'; text: string; at: Date }[] = [];
    const listener = (line: { stream: 'stdout' | 'stderr'; text: string }) => lines.push({ ...line, at: new Date() });
    const set = this.listening.get(integration) ?? new Set();
    set.add(listener);
    this.listening.set(integration, set);
    try {
      return { result: await work(), lines };
    } finally {
      set.delete(listener);
      if (set.size === 0) this.listening.delete(integration);
    }
  }
}

/** How long the installation token an event's script is given works: the event's attempt and its retries' spacing. */
const EVENT_TOKEN_TTL_MS = 15 * 60_000;

/** The script and environment of an event's installation (api/integrations/environment.ts), about the space or site its payload names. */
export function deliveryTargets(orm: Orm, options: { publicUrl: string; secrets: () => Promise<SecretBox> }) {
  return async (event: IntegrationEventRow): Promise<DeliveryTarget | undefined> => {
    if (!event.installationId) return undefined;
    const payload = event.payload;
    // The installation is gone once it was deleted: that event runs with the integration's own environment.
    const deleted = event.type === 'installation_deleted';
    return dispatchTarget(
      forkEm(orm),
      {
        integrationName: event.integrationName,
        ...(deleted ? {} : { installationId: event.installationId }),
        ...(typeof payload.spaceId === 'string' ? { spaceId: payload.spaceId } : {}),
        ...(typeof payload.siteId === 'string' ? { siteId: payload.siteId } : {}),
      },
      { ...options, tokenTtlMs: EVENT_TOKEN_TTL_MS },
    );
  };
}

/** Events whose start may have been lost are looked for once they have been pending this long. */
const STALE_MS = 60_000;
/** Expired installation tokens are deleted a day after they expire, at most this many a run (the next run takes the rest). */
const EXPIRED_TOKEN_KEPT_MS = 86_400_000;
const TOKEN_PURGE_LIMIT = 5000;
/** Installations the sweep wakes at most per run (the next run takes the rest). */
const SWEEP_LIMIT = 500;

/** Activities of the `integration-events` workflow. */
export function integrationEventsActivities(orm: Orm, deps: IntegrationEventsDeps) {
  /** One delivery attempt of a pending event: runs it in the script and records what it answered. */
  async function deliver(
    em: ReturnType<typeof forkEm>,
    event: IntegrationEventRow,
    target: DeliveryTarget | undefined,
  ): Promise<'success' | 'failed'> {
    if (!target) {
      await recordDelivery(em, event.id, {
        status: 'failed',
        responseStatus: null,
        error: 'The installation or its integration no longer exists',
        logs: [],
      });
      return 'failed';
    }
    const { result, lines } = await deps.logs.during(event.integrationName, async () => {
      try {
        return { answer: await deps.sandbox.dispatch(target.script, event.payload, target.environment) };
      } catch (error) {
        if (error instanceof IntegrationSandboxError) return { stopped: error };
        throw error;
      }
    });
    const logs = eventLog(lines);
    if (result.stopped) {
      const stopped = { sandboxError: result.stopped.code, message: result.stopped.message };
      const verdict = deliveryVerdict(stopped);
      await recordDelivery(em, event.id, {
        status: verdict === 'retry' ? 'pending' : 'failed',
        responseStatus: null,
        error: deliveryError(stopped),
        logs,
      });
      if (verdict === 'retry') throw ApplicationFailure.retryable(`Event ${event.id}: ${deliveryError(stopped)}`, result.stopped.code);
      return 'failed';
    }
    const answer = result.answer!;
    const verdict = deliveryVerdict(answer);
    const error = verdict === 'success' ? null : deliveryError({ status: answer.status, body: answer.body.toString('utf8') });
    await recordDelivery(em, event.id, { status: verdict === 'retry' ? 'pending' : verdict, responseStatus: answer.status, error, logs });
    if (verdict === 'retry') throw ApplicationFailure.retryable(`Event ${event.id}: ${error}`, 'INTEGRATION_ERROR');
    return verdict;
  }

  return {
    /** The installation's pending events after `afterSeq`, in order (ids and their place). */
    async pendingIntegrationEvents(installationId: string, afterSeq: string, limit: number) {
      return pendingIntegrationEvents(forkEm(orm), installationId, afterSeq, limit);
    },

    /**
     * Delivers events of one installation in order: each runs in the integration's script and its
     * outcome is recorded before the next goes; settled ones are skipped (a retried attempt resumes
     * where the last stopped). An answer to try again (a 5xx, the sandbox stopping the script) is
     * recorded and thrown, naming the event, so Temporal retries from it with backoff. The script
     * and environment are read once per space or site the events are about (and once for an
     * installation's deletion).
     */
    async deliverIntegrationEvents(eventIds: string[]): Promise<{ success: number; failed: number }> {
      // Heartbeats go on while an event runs (up to INTEGRATION_TIMEOUT), so a slow script never looks like a lost worker.
      return heartbeating(
        async () => {
          const em = forkEm(orm);
          const targets = new Map<string, Promise<DeliveryTarget | undefined>>();
          const counts = { success: 0, failed: 0 };
          for (const eventId of eventIds) {
            const event = await findIntegrationEventById(em, eventId);
            if (!event || event.status !== 'pending') continue;
            // An installation's deletion runs with the integration's environment (deliveryTargets): a target of its own.
            const deleted = event.type === 'installation_deleted';
            const key = `${deleted}\n${String(event.payload.spaceId ?? '')}\n${String(event.payload.siteId ?? '')}`;
            if (!targets.has(key)) targets.set(key, deps.target(event));
            const outcome = await deliver(em, event, await targets.get(key)!);
            counts[outcome]++;
            beat({ delivered: counts.success + counts.failed, of: eventIds.length, last: eventId });
          }
          return counts;
        },
        { delivered: 0, of: eventIds.length },
      );
    },

    /** Settles as failed the first event of `eventIds` still pending, once its attempts are spent; answers its id. */
    async failIntegrationEvent(eventIds: string[], error: string): Promise<string | undefined> {
      const em = forkEm(orm);
      for (const eventId of eventIds) {
        const event = await findIntegrationEventById(em, eventId);
        if (event?.status !== 'pending') continue;
        await failIntegrationEvent(em, eventId, error.slice(0, 1000));
        return eventId;
      }
      return undefined;
    },

    /**
     * The sweep: starts or signals the job of installations with events pending for over a minute;
     * and deletes installation tokens expired for a day (events, tasks and renders mint them), so
     * their table does not grow with every delivery.
     */
    async wakeStaleIntegrationEvents(): Promise<number> {
      const em = forkEm(orm);
      const stale = await installationsWithStalePendingEvents(em, new Date(Date.now() - STALE_MS), SWEEP_LIMIT);
      await announceIntegrationEventsFromActivity(stale);
      await purgeExpiredInstallationTokens(em, new Date(Date.now() - EXPIRED_TOKEN_KEPT_MS), TOKEN_PURGE_LIMIT);
      return stale.length;
    },
  };
}

export type IntegrationEventsActivities = ReturnType<typeof integrationEventsActivities>;
