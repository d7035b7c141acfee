/**
 * Authenticated `GET /v1/spaces/{id}` against a bare Fastify route doing the same indexed query
 * (bench/server.ts): one space read over and over (its answer kept between writes), and a
 * different space each request, over more spaces than the API keeps answers for, so none is kept.
 */
import { compare, load, ratios, type RunOptions, type Row } from '../load.ts';
import type { Stack } from '../stack.ts';

/** Spaces walked by the row that reads a different one each request. */
const UNKEPT_SPACES = 2000;

export async function measureApiGet(stack: Stack, options: RunOptions): Promise<Row[]> {
  const space = await stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: 'GET benchmark' });
  const auth = { authorization: `Bearer ${stack.token}` };
  const run = { connections: options.connections, duration: options.duration };
  const [api, bare] = await compare(
    options.rounds,
    () => load(`${stack.api.url}/v1/spaces/${space.id}`, { ...run, headers: auth }),
    () => load(`${stack.bare.url}/bare/spaces/${space.id}`, run),
  );
  const ratio = api.rps / bare.rps;

  // More spaces than the answers the API keeps (2 MiB of about 2.5 KB each: 800), each connection
  // starting its walk over them at a place of its own, so no answer is found kept.
  const ids: string[] = [];
  for (let i = 0; i < UNKEPT_SPACES; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, UNKEPT_SPACES - i) }, (_, j) =>
        stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: `GET benchmark ${i + j}` }),
      ),
    );
    ids.push(...batch.map((created) => created.id));
  }
  const walk = (prefix: string, headers?: Record<string, string>) =>
    ids.map((id) => ({ method: 'GET' as const, path: `${prefix}${id}`, ...(headers ? { headers } : {}) }));
  const servedBefore = await keptServed(stack.api.url);
  const [unkept, unkeptBare] = await compare(
    options.rounds,
    () => load(stack.api.url, { ...run, headers: auth, sequence: walk('/v1/spaces/', auth), staggered: true }),
    () => load(stack.bare.url, { ...run, sequence: walk('/bare/spaces/'), staggered: true }),
  );
  const unkeptRatio = unkept.rps / unkeptBare.rps;
  const servedFromKept = (await keptServed(stack.api.url)) - servedBefore;
  return [
    {
      measure: 'GET /v1/spaces/{id} (authenticated)',
      value: api.rps,
      unit: 'req/s',
      baseline: 'bare Fastify + pg, same indexed query',
      baselineValue: bare.rps,
      ratio,
      target: 'ratio ≥ 0.85',
      met: ratio >= 0.85,
      note: `p99 ${api.p99} ms vs ${bare.p99} ms`,
      perRound: ratios(api.rounds, bare.rounds, (r) => r.rps),
    },
    {
      measure: `GET /v1/spaces/{id} (authenticated, a different space each request of ${UNKEPT_SPACES})`,
      value: unkept.rps,
      unit: 'req/s',
      baseline: 'bare Fastify + pg, same indexed query, same spaces',
      baselineValue: unkeptBare.rps,
      ratio: unkeptRatio,
      target: 'ratio ≥ 0.85',
      met: unkeptRatio >= 0.85,
      note: `p99 ${unkept.p99} ms vs ${unkeptBare.p99} ms; answers served from what was kept over the rounds: ${servedFromKept}`,
      perRound: ratios(unkept.rounds, unkeptBare.rounds, (r) => r.rps),
    },
  ];
}

/** The space answers the API has served from what it kept (its /metrics). */
async function keptServed(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return Number(/^kept_answers_total\{cache="space",outcome="served"\} (\d+)/m.exec(text)?.[1] ?? 0);
}
