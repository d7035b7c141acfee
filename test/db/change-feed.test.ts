import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { watchChanges, type ChangeFeed } from '../../src/db/change-feed.ts';

/**
 * The change feed catches up with writes committed anywhere: once `caughtUp` resolves true, every
 * notification committed before the call has been heard, however late its delivery would be.
 */
let writer: pg.Client;
/** A channel of this file's own: its notifications reach no API process of the other test files. */
const CHANNEL = `data_changed_test_${randomBytes(6).toString('hex')}`;
beforeAll(async () => {
  writer = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await writer.connect();
});
afterAll(() => writer.end());

async function liveFeed(events: { changes: number }): Promise<{ feed: ChangeFeed; live: Promise<void> }> {
  let ready!: () => void;
  const live = new Promise<void>((resolve) => (ready = resolve));
  const feed = watchChanges(
    process.env.DATABASE_URL!,
    { onChange: () => events.changes++, onLive: (isLive) => isLive && ready(), onError: () => undefined },
    { channel: CHANNEL },
  );
  return { feed, live };
}

describe('the change feed', () => {
  it('has heard every write committed before it was asked to catch up, each time', async () => {
    const events = { changes: 0 };
    const { feed, live } = await liveFeed(events);
    await live;
    try {
      for (let i = 1; i <= 200; i++) {
        await writer.query(`notify ${CHANNEL}`);
        // The writer's transaction has committed: caught up, this feed has heard it.
        expect(await feed.caughtUp()).toBe(true);
        expect(events.changes).toBe(i);
      }
      // Many callers at once share round trips, and each is caught up.
      await writer.query(`notify ${CHANNEL}`);
      const all = await Promise.all(Array.from({ length: 50 }, () => feed.caughtUp()));
      expect(all.every(Boolean)).toBe(true);
      expect(events.changes).toBe(201);
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
