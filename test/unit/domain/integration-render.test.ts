import { describe, expect, it } from '@jest/globals';
import LZString from 'lz-string';
import {
  decompressRenderRequest,
  MAX_RENDER_REQUEST_CHARS,
  RenderRequestError,
  renderVerdict,
} from '../../../src/domain/integration-render.ts';

describe('decompressRenderRequest', () => {
  it("reads a request compressed as GitBook's clients compress it", () => {
    const request = {
      componentId: 'block',
      props: { url: 'https://example.com' },
      context: { type: 'document', spaceId: 's1', editable: false, theme: 'light' },
    };
    expect(decompressRenderRequest(LZString.compressToEncodedURIComponent(JSON.stringify(request)))).toEqual(request);
  });

  it('refuses what is not compressed JSON, and what decompresses past the bound', () => {
    expect(() => decompressRenderRequest('not compressed at all')).toThrow(RenderRequestError);
    expect(() => decompressRenderRequest(LZString.compressToEncodedURIComponent('{"a":'))).toThrow(/not JSON/);
    // Repetitive text compresses very well: a small request that would decompress past the bound.
    const huge = JSON.stringify({ props: { text: 'a'.repeat(MAX_RENDER_REQUEST_CHARS) } });
    const compressed = LZString.compressToEncodedURIComponent(huge);
    expect(compressed.length).toBeLessThan(8192);
    expect(() => decompressRenderRequest(compressed)).toThrow(/once decompressed/);
  });
});

describe('renderVerdict', () => {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));

  it('takes ContentKit output answered 2xx', () => {
    const output = { type: 'element', element: { type: 'block', children: [] }, state: {}, props: {} };
    expect(renderVerdict(200, 'application/json', json(output))).toEqual({ kind: 'ok', body: JSON.stringify(output) });
    expect(renderVerdict(200, 'application/json', json({ type: 'complete', returnValue: {} })).kind).toBe('ok');
  });

  it("passes a script's refusal on with its message, and calls anything else a failure", () => {
    expect(renderVerdict(404, 'application/json', json({ error: 'Component nope not found' }))).toEqual({
      kind: 'refused',
      status: 404,
      message: 'Component nope not found',
    });
    expect(renderVerdict(400, 'text/plain', Buffer.from('bad props'))).toEqual({ kind: 'refused', status: 400, message: 'bad props' });
    expect(renderVerdict(500, 'application/json', json({ error: { message: 'boom' } }))).toEqual({
      kind: 'failed',
      message: 'it answered 500: boom',
    });
    expect(renderVerdict(200, 'text/html', Buffer.from('<p>hi</p>')).kind).toBe('failed');
    expect(renderVerdict(200, 'application/json', json({ element: {} })).kind).toBe('failed');
    expect(renderVerdict(200, 'application/json', json([1])).kind).toBe('failed');
  });
});
