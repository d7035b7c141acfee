/**
 * API resident memory: VmRSS of the API child process (bench/server.ts, read from
 * /proc/<pid>/status) sampled every 200 ms. The value is its peak during a sustained load at the
 * end of the run (30 s of GET in a full run, after every other benchmark has used the process);
 * the baseline is its VmRSS right after start, and the note gives the peak over the whole run.
 * The load starts once the API's parsing pool has no thread left (its /metrics): a thread the
 * hostile inputs of earlier rows woke holds up to its heap bound until it has been idle for
 * 30 s, which is that row's cost, not the sustained load's.
 */
import { readFileSync } from 'node:fs';
import { load, type RunOptions, type Row } from '../load.ts';
import type { Stack } from '../stack.ts';

/** VmRSS of `pid` in MB, or undefined where /proc is not readable. */
export function residentMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function rssSampler(pid: number) {
  const idle = residentMb(pid);
  let peak = idle ?? 0;
  let phasePeak = 0;
  const timer = setInterval(() => {
    const now = residentMb(pid) ?? 0;
    peak = Math.max(peak, now);
    phasePeak = Math.max(phasePeak, now);
  }, 200);
  timer.unref();
  return {
    idle,
    peak: () => peak,
    /** Starts a phase of its own: `phasePeak()` then reads the peak since. */
    startPhase: () => (phasePeak = residentMb(pid) ?? 0),
    phasePeak: () => phasePeak,
    stop: () => clearInterval(timer),
  };
}

export async function measureMemory(stack: Stack, options: RunOptions, sampler: ReturnType<typeof rssSampler>): Promise<Row[]> {
  const measure = 'API resident memory under sustained load (VmRSS of the API child), peak';
  if (sampler.idle === undefined)
    return [
      {
        measure,
        value: null,
        unit: 'MB',
        baseline: '-',
        baselineValue: null,
        ratio: null,
        target: 'value ≤ 250 MB',
        met: null,
        note: '/proc not readable',
      },
    ];
  const space = await stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: 'Memory benchmark' });
  const seconds = options.quick ? 3 : 30;
  const waited = await poolThreadsGone(stack.api.url, 45_000);
  sampler.startPhase();
  await load(`${stack.api.url}/v1/spaces/${space.id}`, {
    connections: options.connections,
    duration: seconds,
    headers: { authorization: `Bearer ${stack.token}` },
  });
  const peak = sampler.phasePeak();
  return [
    {
      measure,
      value: peak,
      unit: 'MB',
      baseline: 'VmRSS right after start',
      baselineValue: sampler.idle,
      ratio: peak / sampler.idle,
      target: 'value ≤ 250 MB',
      met: peak <= 250,
      note: `${seconds} s of GET load at ${options.connections} connections, after every other benchmark, started ${waited === null ? 'with parsing pool threads still alive after 45 s' : `once the parsing pool's threads had ended (${(waited / 1000).toFixed(1)} s)`}; peak over the whole run ${sampler.peak().toFixed(0)} MB`,
    },
  ];
}

/** Waits until the API reports no parsing pool thread (/metrics); ms waited, or null when `timeoutMs` passed first. */
async function poolThreadsGone(origin: string, timeoutMs: number): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    const text = await (await fetch(`${origin}/metrics`)).text();
    const threads = Number(/^parsing_pool_threads (\d+)/m.exec(text)?.[1] ?? NaN);
    if (threads === 0) return Date.now() - started;
    if (!Number.isFinite(threads)) throw new Error('the API does not report parsing_pool_threads in /metrics');
    if (Date.now() - started > timeoutMs) return null;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
