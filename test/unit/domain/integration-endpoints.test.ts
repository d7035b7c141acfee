import { describe, expect, it } from '@jest/globals';
import { publicEndpointAnswerHeaders, publicEndpointRequestHeaders } from '../../../src/domain/integration-endpoints.ts';

describe('public endpoint headers', () => {
  it("keep the caller's request headers but its credentials and the connection's", () => {
    expect(
      publicEndpointRequestHeaders({
        Authorization: 'Bearer dms_secret',
        cookie: 'session=1',
        host: 'docs.example.com',
        'content-length': '12',
        'X-Slack-Signature': 'v0=abc',
        'content-type': 'application/json',
        accept: ['a', 'b'],
        missing: undefined,
      }),
    ).toEqual({ 'x-slack-signature': 'v0=abc', 'content-type': 'application/json', accept: 'a, b' });
  });

  it('drop cookies and framing from an answer, and sandbox it under our origin', () => {
    expect(
      publicEndpointAnswerHeaders({
        'set-cookie': 'a=1',
        'content-type': 'text/html',
        'content-length': '5',
        location: 'https://slack.com/oauth',
      }),
    ).toEqual({
      'content-type': 'text/html',
      location: 'https://slack.com/oauth',
      'content-security-policy': 'sandbox allow-scripts',
      'x-content-type-options': 'nosniff',
    });
    expect(publicEndpointAnswerHeaders({ 'content-security-policy': "default-src 'self'" })['content-security-policy']).toBe(
      "default-src 'self'; sandbox allow-scripts",
    );
  });
});
