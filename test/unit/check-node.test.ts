import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';

/** Runs the npm scripts' Node version check in a child Node that reports `version` as its own. */
function check(version?: string) {
  const pretend =
    version === undefined
      ? []
      : ['--import', `data:text/javascript,Object.defineProperty(process.versions,"node",{value:${JSON.stringify(version)}})`];
  return spawnSync(process.execPath, [...pretend, '--import', './scripts/check-node.js', '-e', 'console.log("entry point ran")'], {
    encoding: 'utf8',
  });
}

describe('Node version check of the npm scripts', () => {
  it('lets the entry point run on this Node', () => {
    const run = check();
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('entry point ran\n');
  });

  it.each(['22.18.0', '23.0.0', '24.21.0'])('lets Node %s run', (version) => {
    expect(check(version).status).toBe(0);
  });

  it.each(['20.20.2', '22.17.9', '18.19.0'])('stops Node %s with one line saying which Node is needed', (version) => {
    const run = check(version);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`needs Node\\.js 22\\.18 or newer.*this is Node ${version.replace(/\./g, '\\.')}`));
  });
});
