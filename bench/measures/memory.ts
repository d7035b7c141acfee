/**
 * API resident memory: VmRSS of the API child process (bench/server.ts, read from
 * /proc/<pid>/status) sampled every 200 ms. The value is its peak during a sustained load at the
 * end of the run (30 s of GET in a full run, after every other benchmark has used the process);
 * the baseline is its VmRSS right after start, and the note gives the peak over the whole run.
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
      note: `${seconds} s of GET load at ${options.connections} connections, after every other benchmark; peak over the whole run ${sampler.peak().toFixed(0)} MB`,
    },
  ];
}
