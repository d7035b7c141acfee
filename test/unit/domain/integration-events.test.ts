import { describe, expect, it } from '@jest/globals';
import {
  deliveryError,
  deliveryVerdict,
  eventLog,
  eventPayload,
  MAX_EVENT_LOG_LINE_CHARS,
  MAX_EVENT_LOG_LINES,
  readerEventsForIntegrations,
  receivesEvent,
} from '../../../src/domain/integration-events.ts';

describe('deliveryVerdict', () => {
  it('settles 2xx as delivered, retries 5xx, 408 and 429, and fails other answers at once', () => {
    expect([200, 201, 204, 299].map((status) => deliveryVerdict({ status }))).toEqual(['success', 'success', 'success', 'success']);
    expect([500, 502, 503, 408, 429].map((status) => deliveryVerdict({ status }))).toEqual(['retry', 'retry', 'retry', 'retry', 'retry']);
    expect([400, 401, 403, 404, 406, 302, 100].map((status) => deliveryVerdict({ status }))).toEqual([
      'failed',
      'failed',
      'failed',
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
  });

  it('retries a script stopped by its limits, and fails one that cannot start', () => {
    for (const code of ['TIMEOUT', 'MEMORY_LIMIT', 'RESPONSE_TOO_LARGE', 'CRASHED', 'CLOSED'])
      expect(deliveryVerdict({ sandboxError: code })).toBe('retry');
    expect(deliveryVerdict({ sandboxError: 'START_FAILED' })).toBe('failed');
  });
});

describe('eventPayload', () => {
  it('puts the common fields last, so a field of the event cannot replace them', () => {
    expect(
      eventPayload('space_content_updated', 'e1', 'i1', { spaceId: 's', eventId: 'forged', type: 'other', installationId: 'x' }),
    ).toEqual({
      spaceId: 's',
      eventId: 'e1',
      type: 'space_content_updated',
      installationId: 'i1',
    });
  });
});

describe('receivesEvent', () => {
  it('sends content events to integrations with their scope, and setup events to every installation', () => {
    expect(receivesEvent('space_content_updated', ['space:content:read'])).toBe(true);
    expect(receivesEvent('space_content_updated', ['space:content:write', 'space:metadata:read'])).toBe(false);
    expect(receivesEvent('space_gitsync_completed', ['space:git:sync'])).toBe(true);
    expect(receivesEvent('space_gitsync_completed', ['space:content:read'])).toBe(false);
    expect(receivesEvent('site_view', ['site:views:read'])).toBe(true);
    expect(receivesEvent('site_view', ['site:script:inject'])).toBe(false);
    expect(receivesEvent('page_feedback', ['page:feedback:read'])).toBe(true);
    expect(receivesEvent('page_feedback', ['site:views:read'])).toBe(false);
    expect(receivesEvent('space_gitsync_started', ['space:git:sync'])).toBe(true);
    expect(receivesEvent('space_gitsync_started', ['space:content:read'])).toBe(false);
    expect(receivesEvent('space_visibility_updated', ['space:metadata:read'])).toBe(true);
    expect(receivesEvent('space_visibility_updated', ['space:content:read', 'space:metadata:write'])).toBe(false);
    expect(receivesEvent('installation_setup', [])).toBe(true);
    expect(receivesEvent('installation_deleted', [])).toBe(true);
    expect(receivesEvent('space_installation_deleted', [])).toBe(true);
    expect(receivesEvent('site_installation_deleted', [])).toBe(true);
    expect(receivesEvent('site_installation_setup', [])).toBe(true);
  });
});

describe('eventLog', () => {
  const at = new Date('2026-11-29T10:00:00Z');
  it('keeps the last lines, each cut, standard error as errors', () => {
    const lines: { stream: 'stdout' | 'stderr'; text: string; at: Date }[] = Array.from({ length: MAX_EVENT_LOG_LINES + 5 }, (_, i) => ({
      stream: 'stdout',
      text: `line ${i}`,
      at,
    }));
    lines.push({ stream: 'stderr', text: 'x'.repeat(MAX_EVENT_LOG_LINE_CHARS + 10), at });
    const kept = eventLog(lines);
    expect(kept).toHaveLength(MAX_EVENT_LOG_LINES);
    expect(kept[0]).toEqual({ message: 'line 6', timestamp: '2026-11-29T10:00:00.000Z', level: 'info' });
    expect(kept.at(-1)).toEqual({
      message: `${'x'.repeat(MAX_EVENT_LOG_LINE_CHARS)}…`,
      timestamp: '2026-11-29T10:00:00.000Z',
      level: 'error',
    });
  });
});

describe('deliveryError', () => {
  it('names the status and the start of the answer, or the sandbox error', () => {
    expect(deliveryError({ status: 400, body: '  nope  ' })).toBe('The integration answered 400: nope');
    expect(deliveryError({ status: 500, body: '' })).toBe('The integration answered 500');
    expect(deliveryError({ status: 500, body: 'y'.repeat(600) })).toBe(`The integration answered 500: ${'y'.repeat(500)}`);
    expect(deliveryError({ sandboxError: 'TIMEOUT', message: 'ran past 10 s' })).toBe('TIMEOUT: ran past 10 s');
  });
});

describe('readerEventsForIntegrations', () => {
  const session = { visitorId: 'v1', userAgent: 'Mozilla/5.0', language: 'fr', referrer: 'https://search.example/?q=x' };
  const location = { url: 'https://docs.example.com/guide', siteSpace: 'ss1', space: 's1', page: 'p1' };

  it("makes GitBook's site_view of a page view and page_feedback of a rating, in order, and nothing of the rest", () => {
    const raised = readerEventsForIntegrations('site1', [
      { type: 'page_view', session, location },
      { type: 'search_type_query', session, location },
      { type: 'page_post_feedback', session, location, feedback: { rating: 'bad' } },
      {
        type: 'page_post_feedback_comment',
        session: { ...session, language: null, referrer: null },
        location,
        feedback: { rating: 'ok', comment: 'Typo' },
      },
    ]);
    expect(raised).toEqual([
      {
        type: 'site_view',
        fields: {
          siteId: 'site1',
          spaceId: 's1',
          pageId: 'p1',
          siteSpaceId: 'ss1',
          visitor: { anonymousId: 'v1', cookies: {}, userAgent: 'Mozilla/5.0', ip: '', language: 'fr' },
          url: location.url,
          referrer: session.referrer,
        },
      },
      expect.objectContaining({ type: 'page_feedback', fields: expect.objectContaining({ feedback: { rating: 'bad' }, pageId: 'p1' }) }),
      {
        type: 'page_feedback',
        fields: expect.objectContaining({
          feedback: { rating: 'ok', comment: 'Typo' },
          visitor: { anonymousId: 'v1', cookies: {}, userAgent: 'Mozilla/5.0', ip: '' },
          referrer: '',
        }),
      },
    ]);
  });
});
