import { describe, expect, it } from '@jest/globals';
import { redactUrl } from '../../src/lib/logger.ts';

describe('redactUrl', () => {
  it('hides visitor tokens and share keys in request URLs, plain or encoded', () => {
    expect(redactUrl('/v1/urls/published?url=x&visitorAuthToken=eyJ.abc.def')).toBe('/v1/urls/published?url=x&visitorAuthToken=[redacted]');
    expect(redactUrl('/v1/orgs/o/sites/s/published?shareKey=k1&limit=2')).toBe('/v1/orgs/o/sites/s/published?shareKey=[redacted]&limit=2');
    expect(redactUrl('/v1/urls/embed?url=https%3A%2F%2Fd.test%2Fa%3FshareKey%3Dk2%26x%3D1')).toBe(
      '/v1/urls/embed?url=https%3A%2F%2Fd.test%2Fa%3FshareKey%3D[redacted]%26x%3D1',
    );
    expect(redactUrl('/v1/spaces/abc')).toBe('/v1/spaces/abc');
  });
});
