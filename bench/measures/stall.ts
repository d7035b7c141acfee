/**
 * Bounded work under hostile input. Two rows:
 *
 * - `/healthz` max latency while every stall input an adversarial probe found is written (each is
 *   refused with a 400 naming its limit, or processed by a job) and read (the same inputs planted
 *   in the database, as content stored before the limits existed, read as documents: each is
 *   converted in the parsing pool within its budget and answered as text), against `/healthz` on
 *   the same idle server in the same run. Target: ≤ 100 ms.
 * - The pool's cost on an ordinary page's first document read: p50 of converting GitBook's block
 *   pages (test/fixtures/gitbook-markdown) in the parsing pool, against converting them inline on
 *   the calling thread, in this process, in the same run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { convertRevisionText, type DocumentIndex } from '../../src/domain/content/document-task.ts';
import { boundedTask, closeTaskPool, runBounded } from '../../src/lib/bounded-parse.ts';
import { median, percentile } from '../lib.ts';
import type { RunOptions, Row } from '../load.ts';
import type { Stack } from '../stack.ts';
import { probe, summary } from './healthz-batch.ts';

const nested = (levels: number): string => (levels === 0 ? '0' : `{a:[0,0,0,0,0,0,0,0,0,0]}.a[.a||${nested(levels - 1)}]`);

/** The probe's inputs, as markdown of a page. */
const STALLS: Record<string, string> = {
  brackets: '['.repeat(30_000) + 'x' + ']'.repeat(30_000),
  emphasis: '**'.repeat(6_000) + 'x' + '**'.repeat(6_000) + '\n',
  elif:
    '{% if visitor.claims.unsigned.b0 %}\nB0\n' +
    Array.from({ length: 11_999 }, (_, i) => `{% elif visitor.claims.unsigned.b${i + 1} %}\nB\n`).join('') +
    '{% endif %}\n',
  table: [`|${'h|'.repeat(900)}`, `|${'-|'.repeat(900)}`, ...Array.from({ length: 500 }, () => `|${'x|'.repeat(900)}`)].join('\n'),
  list: '- '.repeat(2_000) + 'deep\n',
  quotes: '>'.repeat(10_000) + ' deep\n',
  divs: '<div>'.repeat(50_000) + 'x\n',
  expression: `{% if ${nested(7)} %}\nHidden\n{% endif %}\n`,
};

/** 40 schemas, each referring to the one before twice: 2^40 copies when dereferenced. */
function fanOutSpec(): string {
  const schemas: Record<string, unknown> = { S0: { type: 'string' } };
  for (let i = 1; i <= 40; i++)
    schemas[`S${i}`] = {
      type: 'object',
      properties: { a: { $ref: `#/components/schemas/S${i - 1}` }, b: { $ref: `#/components/schemas/S${i - 1}` } },
    };
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'fan-out', version: '1' }, paths: {}, components: { schemas } });
}

async function rawCall(stack: Stack, method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`${stack.api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/** A merged space with one ordinary page per stall input, then each page's stored text replaced by its input. */
async function plantedSpace(stack: Stack): Promise<{ spaceId: string; pages: Map<string, string> }> {
  const { call } = stack;
  const space = await call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: 'Stall inputs', empty: true });
  const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'pages' });
  const names = Object.keys(STALLS);
  await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
    changes: names.map((name) => ({ operation: 'insert_page', document: { markdown: `# Stall ${name}\n\nOrdinary text of ${name}.\n` } })),
  });
  await call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/merge`);
  const tree = await call('GET', `/v1/spaces/${space.id}/content/pages`);
  const pages = new Map<string, string>();
  for (const page of tree.pages as { id: string; title: string }[]) {
    const name = /^Stall (\w+)$/.exec(page.title)?.[1];
    if (name) pages.set(name, page.id);
  }
  const content = await call('GET', `/v1/spaces/${space.id}/content`);
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    for (const [name, pageId] of pages) {
      const updated = await db.query(
        `update page_document d set markdown = $1 from revision_page r
          where r.revision_id = $2 and r.page_id = $3 and d.space_id = $4 and d.hash = r.document_hash`,
        [STALLS[name], content.id, pageId, space.id],
      );
      if (updated.rowCount !== 1) throw new Error(`stall: could not plant ${name} (${updated.rowCount} rows)`);
    }
  } finally {
    await db.end();
  }
  return { spaceId: space.id, pages };
}

async function hostileRound(stack: Stack, planted: { spaceId: string; pages: Map<string, string> }, round: number) {
  const { call } = stack;
  const statuses: string[] = [];
  const work = (async () => {
    // Writes: every input through the API (refused with its limit), and the fan-out spec (a job).
    const cr = await call('POST', `/v1/spaces/${planted.spaceId}/change-requests`, { subject: `stall writes ${round}` });
    const writes = Object.entries(STALLS).map(async ([name, markdown]) => {
      const status = await rawCall(stack, 'POST', `/v1/spaces/${planted.spaceId}/change-requests/${cr.id}/content`, {
        changes: [{ operation: 'insert_page', document: { markdown } }],
      });
      statuses.push(`${name} write ${status}`);
    });
    const spec = rawCall(stack, 'POST', `/v1/orgs/${stack.orgId}/openapi`, {
      slug: `fan-out-${round}-${Date.now()}`,
      source: { text: fanOutSpec() },
    }).then((status) => statuses.push(`fan-out spec ${status}`));
    await Promise.all([...writes, spec]);
    // Reads: the planted pages as documents, evaluated, all at once (each read of a new change request's revision converts again).
    const readCr = await call('POST', `/v1/spaces/${planted.spaceId}/change-requests`, { subject: `stall reads ${round}` });
    await Promise.all(
      [...planted.pages].map(async ([name, pageId]) => {
        const status = await rawCall(
          stack,
          'GET',
          `/v1/spaces/${planted.spaceId}/change-requests/${readCr.id}/content/page/${pageId}?format=document&evaluated=true`,
        );
        statuses.push(`${name} read ${status}`);
      }),
    );
  })();
  const latencies = await probe(stack.api.url, work);
  await work;
  return { ...summary(latencies), statuses };
}

/** p50 of converting each page `times` times, inline and in the pool. */
async function poolCost(rounds: number): Promise<{ inline: number; pooled: number; pages: number }> {
  const dir = new URL('../../test/fixtures/gitbook-markdown/', import.meta.url);
  const texts = readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => readFileSync(new URL(name, dir), 'utf8'));
  const index: DocumentIndex = { pages: new Map(), files: new Map(), reusableContents: new Map() };
  const task = (markdown: string) => ({ markdown, fromPath: '', index, includes: null, maxJsonBytes: 8 * 1024 * 1024 });
  const CONVERT = boundedTask<typeof convertRevisionText>(
    new URL('../../src/domain/content/document-task.ts', import.meta.url),
    'convertRevisionText',
  );
  // Warm-up: both paths compiled, the pool's thread started and its modules loaded.
  for (const text of texts) {
    convertRevisionText(task(text));
    await runBounded(CONVERT, [task(text)], {
      lane: 'interactive',
      timeoutMs: 5_000,
      maxOldGenerationSizeMb: 256,
      maxYoungGenerationSizeMb: 16,
    });
  }
  const inline: number[] = [];
  const pooled: number[] = [];
  for (let r = 0; r < rounds * 10; r++) {
    for (const text of texts) {
      let started = performance.now();
      convertRevisionText(task(text));
      inline.push(performance.now() - started);
      started = performance.now();
      await runBounded(CONVERT, [task(text)], {
        lane: 'interactive',
        timeoutMs: 5_000,
        maxOldGenerationSizeMb: 256,
        maxYoungGenerationSizeMb: 16,
      });
      pooled.push(performance.now() - started);
    }
  }
  await closeTaskPool();
  const p50 = (values: number[]) => percentile(Float64Array.from(values).sort(), 50);
  return { inline: p50(inline), pooled: p50(pooled), pages: texts.length };
}

export async function measureStall(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const planted = await plantedSpace(stack);
  await probe(stack.api.url, 500);
  const idle: number[] = [];
  const busy: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    idle.push(summary(await probe(stack.api.url, 2_000)).max);
    const during = await hostileRound(stack, planted, round);
    busy.push(during.max);
    log(
      `stall: round ${round + 1}: /healthz max ${during.max.toFixed(1)} ms over ${during.count} probes (idle ${idle[round].toFixed(1)} ms); ` +
        during.statuses.sort().join(', '),
    );
  }
  const cost = await poolCost(options.quick ? 1 : options.rounds);
  log(
    `stall: conversion p50 of ${cost.pages} ordinary pages: inline ${cost.inline.toFixed(2)} ms, in the pool ${cost.pooled.toFixed(2)} ms`,
  );
  const busyMax = median(busy);
  const idleMax = median(idle);
  return [
    {
      measure: '/healthz max latency while every stall input is written and read',
      value: busyMax,
      unit: 'ms',
      baseline: '/healthz max latency, idle server',
      baselineValue: idleMax,
      ratio: busyMax / idleMax,
      target: 'value ≤ 100 ms',
      met: busyMax <= 100,
      note: `${Object.keys(STALLS).length} markdown and expression inputs written and read, and the $ref fan-out spec, each round`,
      perRound: busy,
    },
    {
      measure: 'ordinary page document conversion p50, in the parsing pool',
      value: cost.pooled,
      unit: 'ms',
      baseline: 'the same conversion inline, on the calling thread',
      baselineValue: cost.inline,
      ratio: cost.pooled / cost.inline,
      target: 'value ≤ 20 ms',
      met: cost.pooled <= 20,
      note: `${cost.pages} pages of GitBook's block documentation; the pool adds a thread hop and a structured clone each way`,
    },
  ];
}
