import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  eventFields,
  evictions,
  failureMessage,
  ranOutOfMemory,
  routeSubrequest,
  toUpstream,
  type PoolEntry,
} from '../../../src/domain/integrations-runtime.ts';

describe('eventFields', () => {
  it("puts the integration's secrets in the environment, over whatever the caller put there", () => {
    const fields = eventFields(
      { type: 'installation_setup', eventId: 'e' },
      { secrets: { A: 'old' }, apiEndpoint: 'https://x' },
      { A: 'a', B: 'b' },
      undefined,
      undefined,
    );
    expect(JSON.parse(fields.environment)).toEqual({ secrets: { A: 'a', B: 'b' }, apiEndpoint: 'https://x' });
    expect(JSON.parse(fields.event)).toEqual({ type: 'installation_setup', eventId: 'e' });
  });

  it("defaults the API endpoint to the service's, and keeps the caller's", () => {
    expect(JSON.parse(eventFields({}, {}, {}, 'https://docs.example', undefined).environment)).toEqual({
      secrets: {},
      apiEndpoint: 'https://docs.example',
    });
    expect(
      JSON.parse(eventFields({}, { apiEndpoint: 'https://other' }, {}, 'https://docs.example', undefined).environment).apiEndpoint,
    ).toBe('https://other');
  });

  it("gives a fetch event its request's method, URL and headers, unless the event has them", () => {
    const request = { method: 'POST', url: 'https://i.example/v1/hook', headers: { 'x-a': '1' }, body: 'payload' };
    expect(JSON.parse(eventFields({ type: 'fetch' }, {}, {}, undefined, request).event)).toEqual({
      type: 'fetch',
      request: { method: 'POST', url: 'https://i.example/v1/hook', headers: { 'x-a': '1' } },
    });
    const own = { type: 'fetch', request: { method: 'GET', url: 'https://own', headers: {} } };
    expect(JSON.parse(eventFields(own, {}, {}, undefined, request).event)).toEqual(own);
  });
});

describe('routeSubrequest', () => {
  const api = 'http://localhost:8080';
  it.each([
    ['http://localhost:8080/v1/user', 'api'],
    ['http://LOCALHOST:8080/v1/orgs?x=1', 'api'],
    ['http://localhost:8081/v1/user', 'guarded'],
    ['https://localhost:8080/v1/user', 'guarded'],
    ['http://localhost/v1/user', 'guarded'],
    ['http://localhost:8080@evil.example/v1/user', 'guarded'],
    ['http://evil.example/?http://localhost:8080', 'guarded'],
    ['not a url', 'guarded'],
  ] as const)('%s goes %s', (url, route) => {
    expect(routeSubrequest(url, api)).toBe(route);
  });

  it('treats default ports as the same origin', () => {
    expect(routeSubrequest('https://docs.example:443/v1/user', 'https://docs.example')).toBe('api');
    expect(routeSubrequest('https://docs.example/v1/user', 'https://docs.example/')).toBe('api');
  });

  it('guards everything when the service has no API endpoint', () => {
    expect(routeSubrequest('http://localhost:8080/v1/user', undefined)).toBe('guarded');
  });

  it('sends an API request to the upstream with its path and query', () => {
    expect(toUpstream('https://docs.example/v1/spaces/s1?x=1', 'http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/v1/spaces/s1?x=1');
  });
});

describe('evictions', () => {
  const entry = (key: string, lastUsed: number, inFlight = 0, name = key.split('@')[0]): PoolEntry => ({ key, name, lastUsed, inFlight });

  it("stops an integration's other versions when a new one runs", () => {
    expect(evictions([entry('a@1', 1), entry('b@1', 2)], { key: 'a@2', name: 'a' }, 10)).toEqual(['a@1']);
  });

  it('stops the least recently used idle instances beyond the bound', () => {
    expect(evictions([entry('a@1', 3), entry('b@1', 1), entry('c@1', 2)], { key: 'd@1', name: 'd' }, 2)).toEqual(['b@1', 'c@1']);
  });

  it('never stops a busy instance: the pool goes over its bound until it is idle', () => {
    expect(evictions([entry('a@1', 1, 1), entry('b@1', 2)], { key: 'c@1', name: 'c' }, 2)).toEqual(['b@1']);
    expect(evictions([entry('a@1', 1, 1), entry('a@2', 2)], { key: 'a@3', name: 'a' }, 1)).toEqual(['a@2']);
  });

  it('stops nothing for an instance already in the pool', () => {
    expect(evictions([entry('a@1', 1), entry('b@1', 2)], { key: 'a@1', name: 'a' }, 2)).toEqual([]);
  });

  it('leaves the pool within its bound when enough instances are idle, stopping only what it must', () => {
    const pools = fc.uniqueArray(
      fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd', 'e'), version: fc.nat(3), lastUsed: fc.nat(100), busy: fc.boolean() }),
      { selector: (e) => `${e.name}@${e.version}`, maxLength: 12 },
    );
    fc.assert(
      fc.property(pools, fc.constantFrom('a', 'b', 'f'), fc.nat(3), fc.integer({ min: 1, max: 6 }), (pool, name, version, max) => {
        const entries = pool.map((e) => entry(`${e.name}@${e.version}`, e.lastUsed, e.busy ? 1 : 0, e.name));
        const wanted = { key: `${name}@${version}`, name };
        const out = evictions(entries, wanted, max);
        const byKey = new Map(entries.map((e) => [e.key, e]));
        for (const key of out) {
          expect(byKey.get(key)!.inFlight).toBe(0);
          expect(key).not.toBe(wanted.key);
        }
        expect(new Set(out).size).toBe(out.length);
        const left = entries.filter((e) => !out.includes(e.key) && e.key !== wanted.key);
        // No other idle version of the same integration is left.
        expect(left.some((e) => e.name === name && e.inFlight === 0)).toBe(false);
        const busy = left.filter((e) => e.inFlight > 0).length;
        expect(left.length).toBeLessThanOrEqual(Math.max(max - 1, busy));
        // Only as many of the other integrations' idle instances as the bound demands.
        const others = out.filter((key) => byKey.get(key)!.name !== name).length;
        const before = entries.filter((e) => e.key !== wanted.key && !(e.name === name && e.inFlight === 0)).length;
        expect(others).toBe(Math.min(Math.max(0, before - (max - 1)), entries.filter((e) => e.name !== name && e.inFlight === 0).length));
      }),
    );
  });
});

describe('ranOutOfMemory', () => {
  it("recognizes V8's and the allocator's last words", () => {
    expect(
      ranOutOfMemory('workerd/jsg/setup.c++:38: fatal: V8 fatal error; location = Reached heap limit; message = : allocation failed'),
    ).toBe(true);
    expect(ranOutOfMemory('system_allocator.h:362] mprotect(0x71f37f600000, 10485760) failed (Cannot allocate memory)')).toBe(true);
    expect(ranOutOfMemory('Uncaught TypeError: x is not a function')).toBe(false);
  });
});

describe('failureMessage', () => {
  const limits = { timeoutMs: 10_000, memoryLimitBytes: 128 * 2 ** 20, maxResponseBytes: 1000 };
  it('says which limit and how much', () => {
    expect(failureMessage('TIMEOUT', 'slack', limits)).toBe('The integration slack did not answer within 10000 ms; its script was stopped');
    expect(failureMessage('MEMORY_LIMIT', 'slack', limits)).toBe(
      'The integration slack used more than its memory limit of 128 MiB; its script was stopped',
    );
    expect(failureMessage('RESPONSE_TOO_LARGE', 'slack', limits)).toBe('The integration slack answered more than 1000 bytes');
    expect(failureMessage('START_FAILED', 'slack', limits, 'Uncaught SyntaxError')).toBe(
      'The script of the integration slack could not be started: Uncaught SyntaxError',
    );
  });
});
