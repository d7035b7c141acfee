/**
 * `node scripts/record-histories.ts [--per-type N] [--only type,type]` (N completed runs a type, 3 by
 * default; only the workflow types named, every one by default): copies,
 * from the Temporal server at TEMPORAL_ADDRESS (namespace TEMPORAL_NAMESPACE, default `default`),
 * the event histories of recent closed runs of every workflow type the worker runs into
 * `test/fixtures/histories/<type>.json`, where `npm test` replays them against today's workflow code
 * (test/workflows/replay.test.ts). Histories are read with the `temporal` CLI (`workflow show -o
 * json`), in the JSON form every Temporal tool reads.
 *
 * Run it against a server on which the suite has just run (`TEMPORAL_ADDRESS=… npm test`, then
 * this) whenever a workflow gains a new path worth keeping; keep the files of earlier releases
 * that running workflows may still have (docs/development.md, "Changing workflow code").
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { findTemporalCli } from '../src/lib/infra.ts';
import * as workflows from '../src/workflows/index.ts';

const { values } = parseArgs({ options: { 'per-type': { type: 'string', default: '3' }, only: { type: 'string' } } });
const only = values.only?.split(',').map((type) => type.trim());
const unknown = only?.filter((type) => !(type in workflows)) ?? [];
if (unknown.length > 0) throw new Error(`--only: no workflow type ${unknown.join(', ')} (types: ${Object.keys(workflows).join(', ')})`);
const perType = Number(values['per-type']);
const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const cli = findTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.GOPATH);
if (!cli) throw new Error('No temporal CLI found: set TEMPORAL_CLI_PATH or put temporal on PATH');
const out = new URL('../test/fixtures/histories/', import.meta.url);
mkdirSync(out, { recursive: true });

const temporal = (args: string[]) =>
  JSON.parse(
    execFileSync(cli, [...args, '--address', address, '--namespace', namespace, '-o', 'json'], { maxBuffer: 256 * 1024 * 1024 }).toString(),
  );

for (const type of only ?? Object.keys(workflows)) {
  const runs: { workflowId: string; runId: string; status: string; history: unknown }[] = [];
  // Up to N completed runs, and one of each other way a run closes (continued as new, failed,
  // terminated, cancelled, timed out), each of those a path of its own through the code.
  for (const status of ['Completed', 'ContinuedAsNew', 'Failed', 'Terminated', 'Canceled', 'TimedOut']) {
    const limit = status === 'Completed' ? perType : 1;
    const listed = (temporal([
      'workflow',
      'list',
      '--query',
      `WorkflowType = '${type}' AND ExecutionStatus = '${status}'`,
      '--limit',
      String(limit),
    ]) ?? []) as { execution: { workflowId: string; runId: string } }[];
    for (const { execution } of listed.slice(0, limit)) {
      const history = temporal(['workflow', 'show', '--workflow-id', execution.workflowId, '--run-id', execution.runId]);
      runs.push({ workflowId: execution.workflowId, runId: execution.runId, status, history });
    }
  }
  if (runs.length === 0) {
    console.warn(`${type}: no closed run on ${address}; nothing recorded`);
    continue;
  }
  const file = new URL(`${type}.json`, out);
  writeFileSync(file, `${JSON.stringify(runs)}\n`);
  console.log(`${type}: ${runs.length} run(s) (${runs.map((r) => r.status).join(', ')}) -> ${file.pathname}`);
}
