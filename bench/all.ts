/**
 * `npm run bench [-- --quick] [--rounds 3] [--duration 10] [--connections 32] [--search-pages 100000]
 * [--list-rows 1000000] [--git-pages 2000]
 * [--only api-get,list,search,git-import,merge,git-import-answer,pdf,published,reader,healthz-batch,stall,memory,insights-ingest,insights-aggregate,integration-events,integration-block]`
 *
 * Starts one fresh stack (bench/stack.ts), runs every benchmark module in bench/measures/ against
 * it, and prints one markdown table: each measure, its baseline measured in the same run, the
 * ratio and the target. The table is also written to bench/results/latest.json. HTTP throughput is
 * measured with autocannon, in a worker thread of its own (bench/load-worker.ts); every figure is a
 * median over `--rounds` rounds. `--quick` shrinks every size so the whole run takes about a minute
 * (a smoke check, not a result).
 * Targets are reported, not asserted: the exit code is 0 unless the run itself fails.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cleanupStack, median, type MemoryReport } from './lib.ts';
import { notMeasured, type RunOptions, type Row } from './load.ts';
import { startStack, waitForIdleJobs, type Stack } from './stack.ts';
import { measureApiGet } from './measures/api-get.ts';
import { measureListKeyset } from './measures/list-keyset.ts';
import { measureSearch } from './measures/search.ts';
import { measureMerge } from './measures/merge.ts';
import { measureGitImport, measureGitImportAnswer } from './measures/git-import.ts';
import { measurePdf } from './measures/pdf.ts';
import { measurePublished } from './measures/published.ts';
import { measureReader } from './measures/reader.ts';
import { measureHealthzUnderBatch } from './measures/healthz-batch.ts';
import { measureStall } from './measures/stall.ts';
import { measureMemory, rssSampler } from './measures/memory.ts';
import { measureIntegrationBlock } from './measures/integration-block.ts';
import { measureIntegrationEvents } from './measures/integration-events.ts';
import { measureInsightsAggregate, measureInsightsIngest } from './measures/insights.ts';

const MODULES = [
  'api-get',
  'list',
  'search',
  'git-import',
  'merge',
  'git-import-answer',
  'pdf',
  'published',
  'reader',
  'healthz-batch',
  'stall',
  'memory',
  'insights-ingest',
  'insights-aggregate',
  'integration-events',
  'integration-block',
] as const;
type Module = (typeof MODULES)[number];

function readRunOptions(argv: string[]): RunOptions & { only: Set<Module> } {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new Error(`unknown argument ${argv[i]}`);
    if (m[1] === 'quick') flags.set('quick', 'true');
    else flags.set(m[1], m[2] ?? argv[++i] ?? '');
  }
  const known = ['quick', 'rounds', 'duration', 'connections', 'search-pages', 'list-rows', 'git-pages', 'only'];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`unknown flag --${name} (flags: --${known.join(', --')})`);
  const quick = flags.has('quick');
  const int = (name: string, fallback: number, min: number, max: number) => {
    const value = Number(flags.get(name) ?? fallback);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be an integer from ${min} to ${max}`);
    return value;
  };
  const only = new Set((flags.get('only') ?? MODULES.join(',')).split(',') as Module[]);
  for (const name of only) if (!MODULES.includes(name)) throw new Error(`--only: unknown benchmark ${name} (${MODULES.join(', ')})`);
  return {
    quick,
    rounds: int('rounds', quick ? 1 : 3, 1, 20),
    duration: int('duration', quick ? 2 : 10, 1, 600),
    connections: int('connections', quick ? 8 : 32, 1, 1024),
    searchPages: int('search-pages', quick ? 1_000 : 100_000, 10, 1_000_000),
    listRows: int('list-rows', quick ? 20_000 : 1_000_000, 200, 10_000_000),
    gitPages: int('git-pages', quick ? 300 : 2_000, 10, 20_000),
    mergePages: quick ? 500 : 5_000,
    mergeChanges: quick ? 50 : 500,
    pdfPages: quick ? 20 : 200,
    only,
  };
}

const fmt = (n: number | null) =>
  n === null || !Number.isFinite(n) ? '-' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3);

/** Min / median / max of a row's per-round figures ('-' for a row measured once). */
function spread(values: number[] | undefined): string {
  if (!values || values.length < 2) return '-';
  const sorted = [...values].sort((a, b) => a - b);
  return `${fmt(sorted[0])} / ${fmt(median(sorted))} / ${fmt(sorted[sorted.length - 1])}`;
}

function markdown(rows: Row[]): string {
  const lines = [
    '| measure | value | baseline (same run) | baseline value | ratio | judged figure per round: min / median / max | target | met |',
    '| --- | ---: | --- | ---: | ---: | ---: | --- | --- |',
  ];
  for (const r of rows) {
    const value = r.value === null ? (r.note ?? 'not measured') : `${fmt(r.value)} ${r.unit}`;
    const base = r.baselineValue === null ? '-' : `${fmt(r.baselineValue)} ${r.unit}`;
    const met = r.met === null ? '–' : r.met ? 'yes' : 'no';
    lines.push(`| ${r.measure} | ${value} | ${r.baseline} | ${base} | ${fmt(r.ratio)} | ${spread(r.perRound)} | ${r.target} | ${met} |`);
  }
  const notes = rows.filter((r) => r.value !== null && r.note).map((r) => `- ${r.measure}: ${r.note}`);
  return [...lines, ...(notes.length ? ['', ...notes] : [])].join('\n');
}

const log = (line: string) => console.error(line);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)}`;

/** The API's resident peak during a module, and with BENCH_MEMORY_TRACE=1 what it was made of. */
function memoryLine(rssPeakMb: number, report: MemoryReport): string {
  const { now, peak, spacesAtPeak, snapshots } = report;
  let line = `API VmRSS peak ${rssPeakMb.toFixed(0)} MB, now ${mb(now.rss)} MB (heap ${mb(now.heapUsed)}/${mb(now.heapTotal)}, external ${mb(now.external)}, array buffers ${mb(now.arrayBuffers)})`;
  if (peak && peak.rss > 0) {
    line += `; peaks: heap used ${mb(peak.heapUsed)}, heap total ${mb(peak.heapTotal)}, external ${mb(peak.external)}, array buffers ${mb(peak.arrayBuffers)}`;
  }
  if (spacesAtPeak) {
    const spaces = Object.entries(spacesAtPeak)
      .filter(([, s]) => s.size >= 2 ** 20)
      .map(([name, s]) => `${name.replace(/_space$/, '')} ${mb(s.used)}/${mb(s.size)}`);
    line += `; heap spaces at the resident peak (used/committed MB): ${spaces.join(', ')}`;
  }
  if (snapshots?.length) line += `; heap snapshots: ${snapshots.join(', ')}`;
  return line;
}
const options = readRunOptions(process.argv.slice(2));
const cleanup = cleanupStack();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup.run().then(() => process.exit(130)));
const watchdog = setTimeout(
  () => {
    console.error('bench: no result in time, giving up');
    void cleanup.run().then(() => process.exit(1));
  },
  (options.quick ? 10 : 120) * 60_000,
);
watchdog.unref();

let exitCode = 1;
try {
  const started = Date.now();
  const stack: Stack = await startStack(cleanup, log);
  const sampler = rssSampler(stack.api.child.pid!);
  cleanup.push(() => sampler.stop());
  const runs: Record<Module, () => Promise<Row[]>> = {
    'api-get': () => measureApiGet(stack, options),
    list: () => measureListKeyset(stack, options, log),
    search: () => measureSearch(stack, options, log),
    'git-import': () => measureGitImport(stack, options, log),
    merge: () => measureMerge(stack, options, log),
    'git-import-answer': () => measureGitImportAnswer(stack, options, log),
    pdf: () => measurePdf(stack, options, log),
    published: () => measurePublished(stack, options, log),
    reader: () => measureReader(stack, options, log),
    'healthz-batch': () => measureHealthzUnderBatch(stack, options, log),
    stall: () => measureStall(stack, options, log),
    memory: () => measureMemory(stack, options, sampler),
    'insights-ingest': () => measureInsightsIngest(stack, options),
    'insights-aggregate': () => measureInsightsAggregate(stack, options, log),
    'integration-events': () => measureIntegrationEvents(stack, options, log),
    'integration-block': () => measureIntegrationBlock(stack, options, log),
  };
  const rows: Row[] = [];
  const selected = MODULES.filter((name) => options.only.has(name));
  log(`bench: after start, ${memoryLine(sampler.idle ?? 0, await stack.api.memory({ ended: 'start', starting: selected[0] }))}`);
  for (const [i, name] of selected.entries()) {
    // What an earlier row left running in the worker is not this row's cost.
    if (i > 0) log(`bench: jobs before ${name}: ${await waitForIdleJobs(stack)}`);
    const t = Date.now();
    log(`bench: ${name}…`);
    sampler.startPhase();
    try {
      rows.push(...(await runs[name]()));
    } catch (error) {
      log(`bench: ${name} failed: ${error instanceof Error ? error.stack : error}`);
      rows.push(notMeasured(name, '-', `failed: ${(error as Error).message.slice(0, 120)}`));
    }
    log(
      `bench: ${name} done in ${((Date.now() - t) / 1000).toFixed(1)} s; ${memoryLine(sampler.phasePeak(), await stack.api.memory({ ended: name, starting: selected[i + 1] }))}`,
    );
  }
  const table = markdown(rows);
  const mode = options.quick ? 'quick (smoke check, not a result)' : 'full';
  console.log(
    `\n${mode} run, ${options.rounds} round(s) of ${options.duration} s, ${options.connections} connections; ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  console.log(table);
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    new URL('latest.json', dir),
    `${JSON.stringify({ at: new Date().toISOString(), mode, options: { ...options, only: [...options.only] }, rows }, null, 2)}\n`,
  );
  exitCode = 0;
} catch (error) {
  console.error('bench:', error instanceof Error ? error.stack : error);
}
await cleanup.run();
process.exit(exitCode);
