/**
 * Durations written the way operators write them: `7d`, `36h`, `90m`, `15s`, `250ms`,
 * or a combination such as `1d12h`. A bare number is read as seconds.
 */
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

export function parseDuration(text: string): number {
  const input = text.trim();
  if (/^\d+(\.\d+)?$/.test(input)) return Math.round(Number(input) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let consumed = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(input)) !== null) {
    total += Number(match[1]) * UNIT_MS[match[2]];
    consumed = re.lastIndex;
  }
  if (input.length === 0 || consumed !== input.length) {
    throw new Error(`"${text}" is not a duration (examples: 7d, 12h, 30m, 5s, 500ms)`);
  }
  return Math.round(total);
}

export function formatDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
