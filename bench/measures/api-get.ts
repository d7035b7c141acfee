/** Authenticated `GET /v1/spaces/{id}` against a bare Fastify route doing the same indexed query (bench/server.ts). */
import { compare, load, ratios, type RunOptions, type Row } from '../load.ts';
import type { Stack } from '../stack.ts';

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
  ];
}
