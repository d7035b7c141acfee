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

  it('hides every parameter named like a credential, whole even when its value holds escapes', () => {
    expect(redactUrl('/v1/user?access_token=dms_abc%2Bdef&limit=2')).toBe('/v1/user?access_token=[redacted]&limit=2');
    expect(redactUrl('/f?X-Amz-Signature=ab12&X-Amz-Credential=AK%2F1&x=1')).toBe(
      '/f?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&x=1',
    );
    expect(redactUrl('/p?API_KEY=k&apiSecret=s&password=p#frag')).toBe(
      '/p?API_KEY=[redacted]&apiSecret=[redacted]&password=[redacted]#frag',
    );
    expect(redactUrl('/v1/orgs/o/spaces?limit=5&page=abc')).toBe('/v1/orgs/o/spaces?limit=5&page=abc');
  });

  it("hides a share key carried in a published URL's path, plain or encoded, and leaves shorter or longer segments", () => {
    const key = 'Ab3_-'.padEnd(32, 'x');
    expect(redactUrl(`/v1/urls/published?url=${encodeURIComponent(`https://d.test/sites/o/s/${key}/guide`)}`)).toBe(
      `/v1/urls/published?url=${encodeURIComponent('https://d.test/sites/o/s/')}[redacted]${encodeURIComponent('/guide')}`,
    );
    expect(redactUrl(`/v1/urls/embed?url=${encodeURIComponent(`https://d.test/${key}`)}&x=1`)).toBe(
      `/v1/urls/embed?url=${encodeURIComponent('https://d.test/')}[redacted]&x=1`,
    );
    expect(redactUrl(`/sites/o/s/${key}?a=1`)).toBe('/sites/o/s/[redacted]?a=1');
    // A space id (20 characters), a request id (a UUID) and a sha256 are not of the key's form.
    for (const other of ['9mCEIS6nk2jvHI7qdDAw', '0b6c2f1e-3c1d-4e7a-9a55-6f0f0c0f1a2b', 'a'.repeat(64), key.slice(1)]) {
      expect(redactUrl(`/v1/spaces/${other}/x`)).toBe(`/v1/spaces/${other}/x`);
    }
  });

  it('hides the id of an invite link, which is the secret that joins with it', () => {
    expect(redactUrl('/v1/orgs/o/invites/Secret123?x=1')).toBe('/v1/orgs/o/invites/[redacted]?x=1');
    expect(redactUrl('/v1/orgs/o/link-invites/Secret123')).toBe('/v1/orgs/o/link-invites/[redacted]');
    expect(redactUrl('/v1/orgs/o/invites')).toBe('/v1/orgs/o/invites');
    expect(redactUrl('/v1/orgs/o/link-invites?limit=2')).toBe('/v1/orgs/o/link-invites?limit=2');
  });
});
