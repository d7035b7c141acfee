/**
 * `node bench/integration-sandbox.ts [--events 300] [--cold 5]`: what running integration scripts
 * costs (src/lib/integration-sandbox.ts), with a script built from @gitbook/runtime the way
 * `gitbook publish` builds it:
 *
 * - cold start: the first event of a new version (a workerd process started, the script loaded),
 *   median and worst over `--cold` versions;
 * - a trivial event on a warm instance: p50 and p95 over `--events` events one after another, and
 *   events per second with 8 at a time;
 * - resident memory of one idle instance (the workerd process), and of one after the events.
 *
 * Standalone (no database, no Temporal); figures are printed, not asserted.
 */
import { createIntegrationSandbox } from '../src/lib/integration-sandbox.ts';
import { bundleIntegration } from '../test/support/integration-bundle.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const EVENTS = option('events', 300);
const COLD = option('cold', 5);
const MIB = 2 ** 20;

const source = `
import { createIntegration } from '@gitbook/runtime';
export default createIntegration({
  events: { space_content_updated: async () => {} },
  fetch: async (request) => new Response('ok ' + new URL(request.url).pathname),
});`;
const code = await bundleIntegration(source);

const sandbox = createIntegrationSandbox({
  timeoutMs: 30_000,
  memoryLimitBytes: 256 * MIB,
  maxResponseBytes: MIB,
  maxInstances: COLD + 1,
  fetchPolicy: { allowPrivate: false, allowHosts: [], timeoutMs: 5000, maxBytes: MIB, maxRedirects: 5 },
});
const event = { eventId: 'e', type: 'space_content_updated', spaceId: 's', revisionId: 'r' };
const environment = {
  integration: { name: 'bench', version: 1 },
  apiEndpoint: 'http://localhost:8080',
  apiTokens: { integration: 't' },
  signingSecrets: { integration: 's' },
};
const script = (version: number) => ({ name: `bench-${version}`, version, code, secrets: {} });
const ms = (value: number) => `${value.toFixed(1)} ms`;
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

try {
  const cold: number[] = [];
  for (let version = 1; version <= COLD; version++) {
    const t0 = performance.now();
    const answer = await sandbox.dispatch(script(version), event, environment);
    cold.push(performance.now() - t0);
    if (answer.status !== 200) throw new Error(`Cold event answered ${answer.status}: ${answer.body.toString()}`);
  }
  const idleRss = sandbox.stats().find((s) => s.integration === 'bench-1')?.rssBytes ?? null;

  const warm: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const t0 = performance.now();
    await sandbox.dispatch(script(1), event, environment);
    warm.push(performance.now() - t0);
  }
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < EVENTS) await sandbox.dispatch(script(1), event, environment);
    }),
  );
  const perSecond = EVENTS / ((performance.now() - t0) / 1000);
  const afterRss = sandbox.stats().find((s) => s.integration === 'bench-1')?.rssBytes ?? null;

  const mb = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / MIB).toFixed(1)} MiB`);
  console.log(`script: ${(code.length / 1024).toFixed(1)} KiB (@gitbook/runtime, minified)`);
  console.log(`cold start (first event of a new version): median ${ms(pct(cold, 0.5))}, worst ${ms(Math.max(...cold))} over ${COLD}`);
  console.log(`trivial event, warm: p50 ${ms(pct(warm, 0.5))}, p95 ${ms(pct(warm, 0.95))} over ${EVENTS}`);
  console.log(`trivial events, 8 at a time: ${perSecond.toFixed(0)} events/s`);
  console.log(`workerd resident memory: ${mb(idleRss)} after its first event, ${mb(afterRss)} after ${EVENTS * 2 + 1} events`);
  console.log(`this process: ${mb(process.memoryUsage().rss)} resident`);
} finally {
  await sandbox.close();
}
