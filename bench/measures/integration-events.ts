/**
 * `integration-events`: events delivered per second to a trivial integration, end to end. The
 * events of one installation are written as a change raises them (one transaction), their
 * delivery is started as the API starts it, and the clock stops when the last one is settled: the
 * `integration-events` job in the stack's worker runs each, one at a time in order, in the
 * integration's script in workerd, and records its outcome. The baseline is the same deliveries
 * made the plain way in the same run: the same form data (event and environment) POSTed one at a
 * time, in order, by this process to an HTTP receiver on 127.0.0.1 that answers 200.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { insertIntegrationEvents, type NewIntegrationEvent } from '../../src/db/integration-events.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';
import { eventPayload } from '../../src/domain/integration-events.ts';
import { newId } from '../../src/domain/ids.ts';
import { announceIntegrationEvents } from '../../src/temporal/integration-events.ts';
import { sql } from '../../test/support/sql.ts';
import { median } from '../lib.ts';
import type { RunOptions, Row } from '../load.ts';
import type { Stack } from '../stack.ts';

/** The trivial integration: reads the event's form data, answers 200. */
const SCRIPT = `export default { async fetch(request) { await request.formData(); return new Response('ok'); } };`;

export async function measureIntegrationEvents(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const events = options.quick ? 100 : 1000;
  const name = `bench-events-${stack.runId}`.toLowerCase();
  await stack.call('POST', `/v1/integrations/${name}`, {
    title: 'Bench events',
    description: 'Answers every event',
    script: SCRIPT,
    organization: stack.orgId,
    visibility: 'private',
    scopes: ['space:content:read'],
  });
  const installation = await stack.call('POST', `/v1/integrations/${name}/installations`, { organization: stack.orgId });
  const space = await stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: 'Integration events benchmark' });
  await stack.call('PATCH', `/v1/integrations/${name}/installations/${installation.id}/spaces/${space.id}`, { configuration: {} });
  const pending = async () =>
    Number(
      (
        await sql<{ n: string }>(
          stack.orm.em.fork(),
          `select count(*) as n from integration_event where installation_id = ? and status = 'pending'`,
          [installation.id],
        )
      )[0].n,
    );
  const settled = async (deadlineMs: number) => {
    const until = Date.now() + deadlineMs;
    while ((await pending()) > 0) {
      if (Date.now() > until) throw new Error(`integration-events: events still pending after ${deadlineMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  // The setup events start the integration's instance in the worker: not part of what is measured.
  await settled(120_000);

  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: 'default' });
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  // What the plain way sends for each event: the same fields as the sandbox's dispatch.
  const environment = JSON.stringify({
    integration: { name, version: 1, scopes: ['space:content:read'] },
    installation: installation,
    apiEndpoint: 'http://docs.bench',
    apiTokens: { integration: 'x'.repeat(48), installation: 'x'.repeat(48) },
    secrets: {},
  });
  const payloads = (n: number): NewIntegrationEvent[] =>
    Array.from({ length: n }, (_, i) => {
      const id = newId();
      return {
        id,
        integrationName: name,
        organizationId: stack.orgId,
        installationId: installation.id,
        type: 'space_content_updated',
        payload: eventPayload('space_content_updated', id, installation.id, { spaceId: space.id, revisionId: `bench-${i}`, updatedBy: [] }),
      };
    });

  const measured: number[] = [];
  const plain: number[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      const batch = payloads(events);
      let t = performance.now();
      await transaction(forkEm(stack.orm), (tx) => insertIntegrationEvents(tx, batch));
      await announceIntegrationEvents(client, stack.taskQueue, [{ installationId: installation.id, organizationId: stack.orgId }]);
      await settled(600_000);
      measured.push(events / ((performance.now() - t) / 1000));

      t = performance.now();
      for (const event of batch) {
        const form = new FormData();
        form.set('event', JSON.stringify(event.payload));
        form.set('environment', environment);
        const res = await fetch(receiverUrl, { method: 'POST', body: form });
        await res.arrayBuffer();
      }
      plain.push(events / ((performance.now() - t) / 1000));
      log(`integration-events: round ${round + 1}: ${measured.at(-1)!.toFixed(0)} vs ${plain.at(-1)!.toFixed(0)} events/s`);
    }
  } finally {
    await new Promise((done) => receiver.close(done));
    await connection.close();
  }
  const [failed] = await sql<{ n: string }>(
    stack.orm.em.fork(),
    `select count(*) as n from integration_event where installation_id = ? and status <> 'success'`,
    [installation.id],
  );
  const value = median(measured);
  const baselineValue = median(plain);
  return [
    {
      measure: `integration events delivered per second to a trivial integration (workerd), end to end, ${events} in order`,
      value,
      unit: 'events/s',
      baseline: 'the same deliveries POSTed one at a time to a plain HTTP receiver',
      baselineValue,
      ratio: value / baselineValue,
      target: 'reported',
      met: null,
      note: `${failed.n} events not delivered; each delivery is a Temporal activity (its history events, the dispatch to workerd, the outcome's write)`,
      perRound: measured.map((m, i) => m / plain[i]),
    },
  ];
}
