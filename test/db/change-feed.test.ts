import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { watchChanges, type ChangeFeed } from '../../src/db/change-feed.ts';

/**
 * The change feed catches up with writes committed anywhere: once `caughtUp` resolves true, every
 * notification committed before the call has been heard, however late its delivery would be.
 */
let writer: pg.Client;
beforeAll(async () => {
  writer = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await writer.connect();
});
afterAll(() => writer.end());

async function liveFeed(events: { changes: number }): Promise<{ feed: ChangeFeed; live: Promise<void> }> {
  let ready!: () => void;
  const live = new Promise<void>((resolve) => (ready = resolve));
  const feed = watchChanges(process.env.DATABASE_URL!, {
    onChange: () => events.changes++,
    onLive: (isLive) => isLive && ready(),
    onError: () => undefined,
  });
  return { feed, live };
}

describe('the change feed', () => {
  it('has heard every write committed before it was asked to catch up, each time', async () => {
    const events = { changes: 0 };
    const { feed, live } = await liveFeed(events);
    await live;
    try {
      // (Other tests write to the same database meanwhile: their announcements count too, so the
      // count is compared with what it was before this writer's own.)
      for (let i = 1; i <= 200; i++) {
        const before = events.changes;
        await writer.query(`notify data_changed`);
        // The writer's transaction has committed: caught up, this feed has heard it.
        expect(await feed.caughtUp()).toBe(true);
        expect(events.changes).toBeGreaterThan(before);
      }
      // Many callers at once share round trips, and each is caught up.
      const before = events.changes;
      await writer.query(`notify data_changed`);
      const all = await Promise.all(Array.from({ length: 50 }, () => feed.caughtUp()));
      expect(all.every(Boolean)).toBe(true);
      expect(events.changes).toBeGreaterThan(before);
    } finally {
      await feed.stop();
    }
  });

  it('is not caught up while it is not live: before it listens, and once stopped', async () => {
    const events = { changes: 0 };
    const { feed, live } = await liveFeed(events);
    const early = feed.caughtUp();
    await live;
    expect(await early).toBe(false);
    await feed.stop();
    expect(await feed.caughtUp()).toBe(false);
  });
});
