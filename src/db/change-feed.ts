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

/**
 * Listens on CHANGE_CHANNEL over a connection of its own (not one of the pool's: a pooled
 * connection is handed to other work between statements), with TCP keep-alive so that a peer gone
 * silently is noticed. Live once listening; a lost connection is reported as not live at once,
 * then opened again after `retryMs`, doubling up to 30 s while it keeps failing, and is live again
 * once listening again.
 */
export function watchChanges(databaseUrl: string, events: ChangeFeedEvents, retryMs = 1000): { stop(): Promise<void> } {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let wait = retryMs;

  const lost = (error: Error) => {
    events.onLive(false);
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
    const next = new pg.Client({ connectionString: databaseUrl, keepAlive: true, application_name: FEED_APPLICATION_NAME });
    client = next;
    next.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL) events.onChange();
    });
    next.on('error', (error) => client === next && lost(error));
    next.on('end', () => client === next && lost(new Error('the database closed the connection')));
    try {
      await next.connect();
      await next.query(`listen ${CHANGE_CHANNEL}`);
      if (client === next && !stopped) {
        wait = retryMs;
        events.onLive(true);
      }
    } catch (error) {
      if (client === next) lost(error as Error);
    }
  };

  void open();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      events.onLive(false);
      const last = client;
      client = undefined;
      await close(last);
    },
  };
}
