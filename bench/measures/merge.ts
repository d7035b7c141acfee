/**
 * Merge: `POST …/change-requests/{id}/merge` end to end (HTTP → workflow → activity → database)
 * for a change request touching `mergeChanges` pages of a `mergePages`-page space that moved on
 * since, against the in-memory three-way merge of the same page maps (text loaded). A second row
 * makes the same merges in a space with merge rules (all met), against the first row's merges.
 * Each round also says where the time went, from the merge workflow's history: to the workflow's
 * start, to its activity starting, the activity, to the workflow's completion, and to the answer.
 */
import { Client, Connection } from '@temporalio/client';
import { loadPageMap } from '../../src/db/content.ts';
import { changeRequestJobWorkflowId } from '../../src/temporal/change-request-merge.ts';
import { mergePageMaps } from '../../src/domain/content/merge.ts';
import { median } from '../lib.ts';
import { generatePages, pageMarkdown, seedSpace, sentence } from '../corpus.ts';
import type { RunOptions, Row } from '../load.ts';
import type { Stack } from '../stack.ts';

/** Merge rules every merge of the second space is checked against (all met by the benchmark's change requests). */
const RULES = [
  { rule: 'require_change_request_subject' },
  { rule: 'require_author_to_merge' },
  { rule: 'require_all_reviews_approved' },
  { rule: 'allow_bypass', users: [] },
];

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/**
 * Where one merge's time went, from its workflow's history: the request to the workflow's start,
 * to its activity starting (workflow task, activity task), the activity, and from the activity's
 * end to the answer (starting the search index job, completing the workflow, the answer).
 */
async function phases(client: Client, workflowId: string, sent: number, answered: number): Promise<string> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (pick: (e: (typeof events)[number]) => unknown) => ms(events.find((e) => pick(e))?.eventTime);
  const started = at((e) => e.workflowExecutionStartedEventAttributes);
  const activityStarted = at((e) => e.activityTaskStartedEventAttributes);
  const activityCompleted = at((e) => e.activityTaskCompletedEventAttributes);
  const completed = at((e) => e.workflowExecutionCompletedEventAttributes);
  const r = (n: number) => Math.round(n);
  return (
    `start ${r(started - sent)} + before the activity ${r(activityStarted - started)} + activity ${r(activityCompleted - activityStarted)} ` +
    `+ to completion ${r(completed - activityCompleted)} + answer ${r(answered - completed)} ms`
  );
}

export async function measureMerge(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const { mergePages } = options;
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: 'default' });
  let plain: Rounds;
  let ruled: Rounds;
  try {
    plain = await mergeRounds(stack, client, options, log, 'merge', false);
    ruled = await mergeRounds(stack, client, options, log, 'merge with rules', true);
  } finally {
    await connection.close();
  }
  const e2e = median(plain.endToEnd);
  const pure = median(plain.inMemory);
  const withRules = median(ruled.endToEnd);
  return [
    {
      measure: `merge ${options.mergeChanges} pages into ${mergePages.toLocaleString('en')} (POST …/merge)`,
      value: e2e / 1000,
      unit: 's',
      baseline: 'in-memory three-way merge',
      baselineValue: pure / 1000,
      ratio: e2e / pure,
      target: 'value ≤ 0.5 s',
      met: e2e <= 500,
      perRound: plain.endToEnd.map((ms) => ms / 1000),
    },
    {
      measure: `merge of the same size in a space with ${RULES.length} merge rules (checked before and inside the merge)`,
      value: withRules / 1000,
      unit: 's',
      baseline: 'the same merge without rules',
      baselineValue: e2e / 1000,
      ratio: withRules / e2e,
      target: 'ratio ≤ 1.2',
      met: withRules / e2e <= 1.2,
      perRound: ruled.endToEnd.map((ms, i) => ms / plain.endToEnd[i]),
    },
  ];
}

interface Rounds {
  endToEnd: number[];
  inMemory: number[];
}

async function mergeRounds(
  stack: Stack,
  client: Client,
  options: RunOptions,
  log: (line: string) => void,
  label: string,
  rules: boolean,
): Promise<Rounds> {
  const { mergePages, mergeChanges, rounds } = options;
  const { call } = stack;
  const space = await call('POST', `/v1/orgs/${stack.orgId}/spaces`, {
    title: `Merge benchmark${rules ? ' with rules' : ''}`,
    empty: true,
  });
  if (rules) await call('PATCH', `/v1/spaces/${space.id}`, { mergeRules: { type: 'rules', rules: RULES } });
  const base = generatePages(mergePages, 'm');
  // The search rows the indexer would write, in bulk (test/db/bench-corpus.test.ts): the row measures merges, not seeding.
  await seedSpace(stack.orm, space.id, base, 'bulk');
  const ids = Object.keys(base);
  const endToEnd: number[] = [];
  const inMemory: number[] = [];
  const crs = `/v1/spaces/${space.id}/change-requests`;
  for (let round = 0; round < rounds; round++) {
    // The change request edits mergeChanges pages; meanwhile the space merges edits to other pages.
    const mine = await call('POST', crs, { subject: `bench ${round}` });
    const theirs = await call('POST', crs, { subject: `main ${round}` });
    const offset = (round * 2 * mergeChanges) % ids.length;
    const pick = (start: number) => Array.from({ length: mergeChanges }, (_, i) => ids[(start + i) % ids.length]);
    const edits = (pages: string[], tag: string) =>
      pages.map((page) => ({ operation: 'update_page', page, document: { markdown: `${pageMarkdown(0)}\n${tag} ${sentence(10)}\n` } }));
    for (const [cr, pages, tag] of [
      [mine, pick(offset), 'mine'],
      [theirs, pick(offset + mergeChanges), 'theirs'],
    ] as const) {
      const all = edits(pages, tag);
      for (let i = 0; i < all.length; i += 50) await call('POST', `${crs}/${cr.id}/content`, { changes: all.slice(i, i + 50) });
    }
    await call('POST', `${crs}/${theirs.id}/merge`);
    const crRow = await call('GET', `${crs}/${mine.id}`);
    const spaceRevision = (await call('GET', `/v1/spaces/${space.id}`)).revision;
    const em = stack.orm.em.fork();
    const [b, o, t] = await Promise.all([
      loadPageMap(em, crRow.revisionInitial, true),
      loadPageMap(em, spaceRevision, true),
      loadPageMap(em, crRow.revision, true),
    ]);
    let time = performance.now();
    const pure = mergePageMaps(b, o, t);
    inMemory.push(performance.now() - time);
    if (pure.conflicts.length) throw new Error(`unexpected conflicts: ${pure.conflicts.length}`);
    const sent = Date.now();
    time = performance.now();
    const result = await call('POST', `${crs}/${mine.id}/merge`);
    endToEnd.push(performance.now() - time);
    if (result.result !== 'merge') throw new Error(`merge answered ${JSON.stringify(result)}`);
    const where = await phases(client, changeRequestJobWorkflowId('merge', space.id, mine.id), sent, sent + endToEnd[round]);
    log(`${label}: round ${round + 1}: end to end ${endToEnd[round].toFixed(0)} ms (${where}), in memory ${inMemory[round].toFixed(0)} ms`);
  }
  return { endToEnd, inMemory };
}
