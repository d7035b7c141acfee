import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { initOrm, transaction, type Orm } from '../../src/db/orm.ts';
import { withoutCountingWrites } from '../../src/db/write-count.ts';
import { createOrganization, findOrCreateUser, setMembership } from '../../src/db/accounts.ts';
import { setMemberRole } from '../../src/db/members.ts';
import { pingDatabase } from '../../src/db/health.ts';
import { writesSeen } from '../../src/domain/read-cache.ts';
import { sql } from '../support/sql.ts';

/**
 * Every way this process writes through the ORM's connections counts as a write once the database
 * has answered it (src/db/write-count.ts), so an answer kept before it (domain/read-cache.ts) is
 * never served after its response; reads count nothing, so kept answers survive them.
 */
let orm: Orm;
beforeAll(async () => {
  orm = await initOrm({ databaseUrl: process.env.DATABASE_URL!, poolMax: 2 });
});
afterAll(() => orm.close(true));

/** How many writes `work` counted: at least one by the time it has returned, or none. */
async function counted(work: () => Promise<unknown>): Promise<number> {
  const before = writesSeen();
  await work();
  return writesSeen() - before;
}

describe('writes counted on the ORM connections', () => {
  it('counts nothing for reads: plain statements, the pool and prepared ones', async () => {
    const em = orm.em.fork();
    expect(await counted(() => pingDatabase(em))).toBe(0);
    expect(await counted(() => sql(em, 'select count(*) from organization'))).toBe(0);
  });

  it('counts an entity flush, a statement on the pool and a raw statement, each by the time it returns', async () => {
    const em = orm.em.fork();
    const org = await createOrganization(em, 'Counted');
    const user = await findOrCreateUser(em, `counted-${org.id.toLowerCase()}@example.com`, 'Counted');
    expect(await counted(() => setMembership(orm.em.fork(), org.id, user.id, 'read'))).toBeGreaterThan(0);
    expect(await counted(() => setMemberRole(orm.em.fork(), org.id, user.id, 'edit'))).toBeGreaterThan(0);
    expect(await counted(() => sql(orm.em.fork(), 'update organization set title = ? where id = ?', ['Raw', org.id]))).toBeGreaterThan(0);
  });

  it('counts a transaction again at its commit, after its last statement', async () => {
    const em = orm.em.fork();
    const org = await createOrganization(em, 'In a transaction');
    const user = await findOrCreateUser(em, `tx-${org.id.toLowerCase()}@example.com`, 'In a transaction');
    await setMembership(em, org.id, user.id, 'read');
    let afterLastStatement = 0;
    await transaction(orm.em.fork(), async (tx) => {
      await setMemberRole(tx, org.id, user.id, 'edit');
      afterLastStatement = writesSeen();
    });
    expect(writesSeen()).toBeGreaterThan(afterLastStatement);
  });

  it('leaves out writes sent within withoutCountingWrites, their transaction and commit included, and only those', async () => {
    const em = orm.em.fork();
    const org = await createOrganization(em, 'Uncounted');
    const user = await findOrCreateUser(em, `uncounted-${org.id.toLowerCase()}@example.com`, 'Uncounted');
    await setMembership(em, org.id, user.id, 'read');
    const write = () => sql(orm.em.fork(), 'update organization set title = ? where id = ?', ['Uncounted write', org.id]);
    expect(await counted(() => withoutCountingWrites(write))).toBe(0);
    expect(
      await counted(() => withoutCountingWrites(() => transaction(orm.em.fork(), (tx) => setMemberRole(tx, org.id, user.id, 'edit')))),
    ).toBe(0);
    // A write sent at the same time outside it still counts.
    const before = writesSeen();
    await Promise.all([withoutCountingWrites(write), setMemberRole(orm.em.fork(), org.id, user.id, 'comment')]);
    expect(writesSeen()).toBeGreaterThan(before);
    expect(await counted(write)).toBeGreaterThan(0);
  });
});
