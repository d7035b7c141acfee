/**
 * Readers: what GitBook's site renderer asks for a page view, against `GET /v1/spaces/{id}` on the
 * same server (rounds alternate). A page view is the renderer's sequence: the URL lookup with a
 * site lookup token, then with the visitor's token of its answer the published site, the revision
 * with its metadata and the page's document (evaluated, reusable contents expanded). Every request
 * of the sequence counts in its throughput; the page has 40 blocks. Like the renderer's `fetch`, the
 * sequence accepts gzip (the client does not inflate what it receives). A second row times the document
 * of a 300-block page alone, one request at a time. A third row is the page views again while the
 * renderer's insights events arrive (batches of 50 page views POSTed by its lookup token, at a steady
 * EVENTS_PER_SECOND), against the page views alone in the same run: ingestion must not slow readers.
 */
import { percentile, timedClient } from '../lib.ts';
import { generatePages, seedSpace } from '../corpus.ts';
import { compare, load, ratios, type RunOptions, type Row } from '../load.ts';
import { pageView } from './insights.ts';
import type { Stack } from '../stack.ts';

/** A page of `count` top-level blocks in Git Sync's markdown: every kind a reader's page commonly holds. */
export function blockPage(count: number): string {
  const kinds = [
    (i: number) => `## Section ${i}`,
    (i: number) => `A paragraph ${i} with **bold**, _italic_, \`code\` and a [link](https://example.com/${i}).`,
    (i: number) => `{% hint style="info" %}\nHint ${i}: remember this.\n{% endhint %}`,
    (i: number) => `- item ${i} one\n- item ${i} two\n  - nested ${i}`,
    (i: number) =>
      `{% code title="example-${i}.ts" lineNumbers="true" %}\n\`\`\`typescript\nconst value${i} = ${i};\nexport default value${i};\n\`\`\`\n{% endcode %}`,
    (i: number) => `| Name | Value |\n| --- | --- |\n| row ${i} | ${i * 2} |\n| other | ${i * 3} |`,
    (i: number) =>
      `{% tabs %}\n{% tab title="One" %}\nFirst tab ${i}.\n{% endtab %}\n\n{% tab title="Two" %}\nSecond tab ${i}.\n{% endtab %}\n{% endtabs %}`,
    (i: number) => `> A quote ${i}.`,
    (i: number) => `<details>\n\n<summary>More ${i}</summary>\n\nHidden text ${i}.\n\n</details>`,
    (i: number) => `1. first ${i}\n2. second ${i}`,
  ];
  return `# A long page\n\n${Array.from({ length: count - 1 }, (_, i) => kinds[i % kinds.length](i)).join('\n\n')}\n`;
}

/** The events the third row's renderer sends while readers read: about a page view's event for each page view served. */
const EVENTS_PER_SECOND = 1000;
const EVENT_BATCH = 50;

/**
 * POSTs a batch of `EVENT_BATCH` page-view events every `EVENT_BATCH / eventsPerSecond` seconds on
 * one connection until stopped; counts what was accepted (204) and refused.
 */
function eventFlow(origin: string, path: string, token: string, eventsPerSecond: number) {
  // Open loop, as a renderer serving many readers sends: a batch every `everyMs` whatever the
  // answers' time (a batch waits for its group commit), over connections enough for them.
  const client = timedClient(origin, 8);
  const body = JSON.stringify({ events: Array.from({ length: EVENT_BATCH }, (_, i) => pageView(i)) });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const everyMs = (1000 * EVENT_BATCH) / eventsPerSecond;
  const counts = { accepted: 0, refused: 0 };
  /** The first answers refused, as `status: start of the body` (or the error), for the run's error. */
  const why: string[] = [];
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const sent: Promise<void> = client.request('POST', path, headers, body).then(
      (res) => {
        if (res.status === 204) counts.accepted += EVENT_BATCH;
        else {
          counts.refused += EVENT_BATCH;
          if (why.length < 3) why.push(`${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
        }
      },
      (error: Error) => {
        counts.refused += EVENT_BATCH;
        if (why.length < 3) why.push(error.message);
      },
    );
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };
  const started = performance.now();
  let sentCount = 0;
  const timer = setInterval(() => {
    // Catches up after a late tick, so the rate holds on a loaded machine.
    const due = Math.floor((performance.now() - started) / everyMs) + 1;
    for (; sentCount < due; sentCount++) send();
  }, everyMs / 2);
  return {
    stop: async () => {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      await Promise.all(inFlight);
      await client.close();
      return { ...counts, why, seconds };
    },
  };
}

export async function measureReader(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const { call, orgId } = stack;
  const blocks = 300;
  const space = await call('POST', `/v1/orgs/${orgId}/spaces`, { title: 'Reader benchmark', empty: true });
  const pages = generatePages(options.quick ? 50 : 200, 'r');
  // A page as readers commonly read (40 blocks) and a long one (300 blocks), under the first top-level page.
  const [, typicalId, longId] = Object.keys(pages);
  pages[typicalId] = { ...pages[typicalId], title: 'A page', slug: 'a-page', markdown: blockPage(40) };
  pages[longId] = { ...pages[longId], title: 'A long page', slug: 'a-long-page', markdown: blockPage(blocks) };
  await seedSpace(stack.orm, space.id, pages);
  const site = await call('POST', `/v1/orgs/${orgId}/sites`, { title: 'Reader site', visibility: 'public', spaces: [space.id] });
  await call('POST', `/v1/orgs/${orgId}/sites/${site.id}/publish`);
  const lookupToken = (await call('POST', `/v1/orgs/${orgId}/site-lookup-tokens`, { label: 'Renderer' })).token as string;

  const url = `http://docs.bench/sites/${orgId}/${site.id}/${pages[Object.keys(pages)[0]].slug}/a-page`;
  const lookupBody = JSON.stringify({ url, visitor: { unsignedClaims: {} }, redirectOnError: false });
  const client = timedClient(stack.api.url);
  const lookupAnswer = await client.request(
    'POST',
    '/v1/urls/published',
    { authorization: `Bearer ${lookupToken}`, 'content-type': 'application/json' },
    lookupBody,
  );
  const lookup = JSON.parse(lookupAnswer.body.toString('utf8')) as { apiToken: string; revision: string; page?: string };
  if (lookup.page !== typicalId) throw new Error(`the lookup did not resolve the page: ${JSON.stringify(lookup).slice(0, 300)}`);
  // As the renderer's `fetch` (undici) sends it over http: it accepts compressed answers.
  const visitor = { authorization: `Bearer ${lookup.apiToken}`, 'accept-encoding': 'gzip, deflate' };
  const documentOf = (pageId: string) =>
    `/v1/spaces/${space.id}/revisions/${lookup.revision}/page/${pageId}/document?evaluated=deterministic-only&dereferenced=reusable-contents`;
  const documentPath = documentOf(longId);
  const sequence = [
    {
      method: 'POST' as const,
      path: '/v1/urls/published',
      headers: { authorization: `Bearer ${lookupToken}`, 'content-type': 'application/json' },
      body: lookupBody,
    },
    { method: 'GET' as const, path: `/v1/orgs/${orgId}/sites/${site.id}/published`, headers: visitor },
    { method: 'GET' as const, path: `/v1/spaces/${space.id}/revisions/${lookup.revision}?metadata=true`, headers: visitor },
    { method: 'GET' as const, path: documentOf(typicalId), headers: visitor },
  ];
  // Each request of the sequence alone, one at a time: what a page view's time is made of.
  const sizes: number[] = [];
  const steps: number[][] = sequence.map(() => []);
  const alone: number[] = [];
  const sequential = options.quick ? 20 : 100;
  for (let i = 0; i < sequential + 5; i++) {
    for (const [n, step] of sequence.entries()) {
      const res = await client.request(step.method, step.path, step.headers, 'body' in step ? step.body : undefined);
      if (i >= 5) steps[n].push(res.ms);
      if (res.status !== 200) throw new Error(`${step.method} ${step.path} answered ${res.status}`);
      if (i === 0) sizes.push(res.body.length);
    }
    const plain = await client.request('GET', `/v1/spaces/${space.id}`, { authorization: `Bearer ${stack.token}` });
    if (i >= 5) alone.push(plain.ms);
  }
  const stepMedians = steps.map((samples) => percentile(Float64Array.from(samples).sort(), 50));

  const run = { connections: options.connections, duration: options.duration, serverPid: stack.api.child.pid };
  const auth = { authorization: `Bearer ${stack.token}` };
  const [reader, plain] = await compare(
    options.rounds,
    () => load(stack.api.url, { ...run, sequence }),
    () => load(`${stack.api.url}/v1/spaces/${space.id}`, { ...run, headers: auth }),
  );
  const ratio = reader.rps / plain.rps;

  // The page views again while the renderer's events arrive, against the page views alone.
  const eventsPath = `/v1/orgs/${orgId}/sites/${site.id}/insights/events`;
  // The events' path warmed up first (its code optimized, the site's facts kept), as the page views' is by the rows above.
  const warmup = eventFlow(stack.api.url, eventsPath, lookupToken, EVENTS_PER_SECOND);
  await new Promise((done) => setTimeout(done, options.quick ? 1000 : 5000));
  const warmed = await warmup.stop();
  if (warmed.refused > 0) throw new Error(`${warmed.refused} events sent to warm up were refused: ${warmed.why.join(' | ')}`);
  const flowed = { accepted: 0, refused: 0, seconds: 0, why: [] as string[] };
  const [tracked, untracked] = await compare(
    options.rounds,
    async () => {
      const flow = eventFlow(stack.api.url, eventsPath, lookupToken, EVENTS_PER_SECOND);
      try {
        return await load(stack.api.url, { ...run, sequence });
      } finally {
        const counts = await flow.stop();
        flowed.accepted += counts.accepted;
        flowed.refused += counts.refused;
        flowed.why.push(...counts.why);
        flowed.seconds += counts.seconds;
      }
    },
    () => load(stack.api.url, { ...run, sequence }),
  );
  if (flowed.refused > 0)
    throw new Error(`${flowed.refused} of the events sent during the page views were refused: ${flowed.why.slice(0, 3).join(' | ')}`);
  const trackedRatio = tracked.rps / untracked.rps;

  // The document alone, one request at a time, after a warm-up.
  const samples: number[] = [];
  const count = options.quick ? 60 : 300;
  for (let i = 0; i < count + 20; i++) {
    const res = await client.request('GET', documentPath, visitor);
    if (res.status !== 200) throw new Error(`GET ${documentPath} answered ${res.status}`);
    if (i >= 20) samples.push(res.ms);
  }
  await client.close();
  const sorted = Float64Array.from(samples).sort();
  const p95 = percentile(sorted, 95);
  log(`reader: ${reader.rps.toFixed(0)} req/s in page views vs ${plain.rps.toFixed(0)}; ${blocks}-block document p95 ${p95.toFixed(1)} ms`);
  return [
    {
      measure: "a reader's page view of a 40-block page (lookup, published site, revision, page document), requests/s",
      value: reader.rps,
      unit: 'req/s',
      baseline: 'GET /v1/spaces/{id}, same server',
      baselineValue: plain.rps,
      ratio,
      target: 'ratio ≥ 0.5',
      met: ratio >= 0.5,
      note: `${Object.keys(pages).length}-page space; answers of ${sizes.map((n) => `${(n / 1024).toFixed(1)}`).join(' + ')} kB on the wire; alone, one at a time, p50 ${stepMedians.map((ms) => ms.toFixed(2)).join(' + ')} ms (GET space ${percentile(Float64Array.from(alone).sort(), 50).toFixed(2)} ms); p99 ${reader.p99} ms vs ${plain.p99} ms; the API's CPU per answer ${reader.serverCpu?.toFixed(1) ?? '-'} vs ${plain.serverCpu?.toFixed(1) ?? '-'} µs`,
      perRound: ratios(reader.rounds, plain.rounds, (r) => r.rps),
    },
    {
      measure: `a reader's page views while the renderer's insights events arrive (${EVENTS_PER_SECOND} events/s in batches of ${EVENT_BATCH}), requests/s`,
      value: tracked.rps,
      unit: 'req/s',
      baseline: 'the same page views without events, same server',
      baselineValue: untracked.rps,
      ratio: trackedRatio,
      target: 'ratio ≥ 0.9',
      met: trackedRatio >= 0.9,
      note: `${flowed.accepted} events accepted during the rounds (${(flowed.accepted / flowed.seconds).toFixed(0)} a second); p99 ${tracked.p99} ms vs ${untracked.p99} ms; the API's CPU per answer ${tracked.serverCpu?.toFixed(1) ?? '-'} vs ${untracked.serverCpu?.toFixed(1) ?? '-'} µs`,
      perRound: ratios(tracked.rounds, untracked.rounds, (r) => r.rps),
    },
    {
      measure: `document of a ${blocks}-block page p95 (GET …/page/{id}/document)`,
      value: p95,
      unit: 'ms',
      baseline: '-',
      baselineValue: null,
      ratio: null,
      target: 'value ≤ 20 ms',
      met: p95 <= 20,
      note: `${count} requests one at a time; p50 ${percentile(sorted, 50).toFixed(1)} ms`,
    },
  ];
}
