import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The channel on which the database announces writes to the tables that answers remembered
 * between writes are made of (Migration0028ChangeFeed): one notification per committed
 * transaction that wrote to any of them, whichever process wrote.
 */
export const CHANGE_CHANNEL = 'data_changed';

/** How the feed's connection names itself in `pg_stat_activity`, for operators. */
export const FEED_APPLICATION_NAME = 'docs-service change feed';

export interface ChangeFeedEvents {
  /** Another transaction committed a write (this process's own included). */
  onChange(): void;
  /** Notifications are heard (true) or not (false: connecting, or the connection was lost). */
  onLive(live: boolean): void;
  /** Why the connection failed or was lost; it is opened again after `retryMs`. */
  onError(error: Error): void;
}

/** Ends a feed connection that is no longer used, whatever state it is in, without another event from it. */
async function close(client: pg.Client | undefined): Promise<void> {
  if (!client) return;
  client.removeAllListeners();
  client.on('error', () => {});
  await client.end().catch(() => {});
}

/** The feed of one process: its connection, and the way to catch up with it. */
export interface ChangeFeed {
  /**
   * Resolves true once every write committed before the call, in any process, has been heard
   * (onChange called for it); false when that cannot be known now (the feed is not live, or did
   * not answer within `barrierTimeoutMs`): an answer kept between writes must then not be served.
   */
  caughtUp(): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Listens on CHANGE_CHANNEL (or `channel`) over a connection of its own (not one of the pool's: a pooled
 * connection is handed to other work between statements), with TCP keep-alive so that a peer gone
 * silently is noticed. Live once listening; a lost connection is reported as not live at once,
 * then opened again after `retryMs`, doubling up to 30 s while it keeps failing, and is live again
 * once listening again.
 *
 * Catching up (`caughtUp`) cannot be raced: the feed sends a notification of its own on a
 * channel only it listens to, and PostgreSQL delivers notifications in the order their
 * transactions committed, whatever their channel. A write another process committed before the
 * call (before its client was answered, so before this process was asked) is heard before that
 * notification comes back. Calls made while one is on its way wait for the next, which covers
 * them all: one round trip at a time, however many reads wait.
 */
export function watchChanges(
  databaseUrl: string,
  events: ChangeFeedEvents,
  options: { retryMs?: number; barrierTimeoutMs?: number; channel?: string } = {},
): ChangeFeed {
  const retryMs = options.retryMs ?? 1000;
  const channel = options.channel ?? CHANGE_CHANNEL;
  const barrierTimeoutMs = options.barrierTimeoutMs ?? 2000;
  const barrierChannel = `data_changed_barrier_${randomBytes(8).toString('hex')}`;
  let client: pg.Client | undefined;
  let live = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let wait = retryMs;
  /** Barriers sent and not yet heard back, by number; and the calls waiting for the next one. */
  const sent = new Map<string, { resolve: ((caught: boolean) => void)[]; timer: NodeJS.Timeout }>();
  let next: ((caught: boolean) => void)[] = [];
  let numbered = 0;

  const settle = (caught: boolean) => {
    for (const { resolve, timer } of sent.values()) {
      clearTimeout(timer);
      resolve.forEach((r) => r(caught));
    }
    sent.clear();
    const waiting = next;
    next = [];
    waiting.forEach((r) => r(caught));
  };

  const sendBarrier = () => {
    if (!client || !live || sent.size > 0 || next.length === 0) return;
    const key = String(++numbered);
    const resolve = next;
    next = [];
    const timer = setTimeout(() => {
      // Not heard back in time: these reads are answered afresh; later ones get a barrier of their own.
      sent.delete(key);
      resolve.forEach((r) => r(false));
      sendBarrier();
    }, barrierTimeoutMs);
    timer.unref();
    sent.set(key, { resolve, timer });
    client.query('select pg_notify($1, $2)', [barrierChannel, key]).catch(() => {
      // The connection is failing: `lost` settles every call.
    });
  };

  const heardBarrier = (key: string) => {
    const barrier = sent.get(key);
    if (!barrier) return;
    sent.delete(key);
    clearTimeout(barrier.timer);
    barrier.resolve.forEach((r) => r(true));
    sendBarrier();
  };

  const lost = (error: Error) => {
    live = false;
    events.onLive(false);
    settle(false);
    if (stopped) return;
    events.onError(error);
    void close(client);
    client = undefined;
    retry ??= setTimeout(() => {
      retry = undefined;
      void open();
    }, wait);
    retry.unref();
    wait = Math.min(2 * wait, 30_000);
  };

  const open = async () => {
    if (stopped) return;
    const connection = new pg.Client({ connectionString: databaseUrl, keepAlive: true, application_name: FEED_APPLICATION_NAME });
    client = connection;
    connection.on('notification', (message) => {
      if (client !== connection) return;
      if (message.channel === channel) events.onChange();
      else if (message.channel === barrierChannel) heardBarrier(message.payload ?? '');
    });
    connection.on('error', (error) => client === connection && lost(error));
    connection.on('end', () => client === connection && lost(new Error('the database closed the connection')));
    try {
      await connection.connect();
      await connection.query(`listen ${channel}`);
      await connection.query(`listen ${barrierChannel}`);
      if (client === connection && !stopped) {
        wait = retryMs;
        live = true;
        events.onLive(true);
      }
    } catch (error) {
      if (client === connection) lost(error as Error);
    }
  };

  void open();
  return {
    caughtUp() {
      if (!live || stopped) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        next.push(resolve);
        sendBarrier();
      });
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      live = false;
      events.onLive(false);
      settle(false);
      const last = client;
      client = undefined;
      await close(last);
    },
  };
}
