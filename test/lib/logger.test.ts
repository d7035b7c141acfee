import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { logger } from '../../src/lib/logger.ts';

function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('logger', () => {
  it('writes one JSON object a line, with secrets redacted', () => {
    const out = sink();
    logger('info', { pretty: false, destination: out.stream }).info({ token: 'gb_secret', user: 'u1' }, 'signed in');
    const line = JSON.parse(out.text().trim());
    expect(line).toMatchObject({ level: 30, msg: 'signed in', user: 'u1', token: '[redacted]' });
  });

  it('writes human-readable lines when asked (an interactive terminal), still redacted', () => {
    const out = sink();
    logger('info', { pretty: true, destination: out.stream }).info({ token: 'gb_secret', user: 'u1' }, 'signed in');
    const text = out.text();
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: signed in\n/);
    expect(text).toContain('user: "u1"');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('gb_secret');
    expect(text).not.toContain('{"level"');
  });

  it('respects the level', () => {
    const out = sink();
    const log = logger('warn', { pretty: false, destination: out.stream });
    log.info('hidden');
    log.warn('shown');
    expect(out.text()).not.toContain('hidden');
    expect(out.text()).toContain('shown');
  });
});
