import { describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import type { SentAnswer } from '../../../src/api/app.ts';
import { checkAnswer, takeMismatches } from '../../support/answer-check.ts';

const answer = (over: Partial<SentAnswer>): SentAnswer => ({
  method: 'GET',
  url: '/v1/orgs/org1/members/user1',
  route: '/v1/orgs/:organizationId/members/:userId',
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  payload: '{}',
  ...over,
});

describe("the suite's answer check", () => {
  it("records a successful answer that does not match GitBook's schema of its operation, by method and path", () => {
    checkAnswer(answer({ payload: JSON.stringify({ object: 'member', role: 'admin' }) }));
    const found = takeMismatches();
    expect(found).toHaveLength(1);
    expect(found[0].operationId).toBe('getMemberInOrganizationById');
    expect(found[0].errors.join('\n')).toMatch(/required property/);
  });

  it('reads gzipped answers and query strings, and checks statuses GitBook does not declare', () => {
    checkAnswer(
      answer({
        url: '/v1/orgs/org1/members/user1?x=1',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        payload: gzipSync('{"object":"member"}'),
      }),
    );
    checkAnswer(answer({ method: 'DELETE', status: 200, payload: '' }));
    const found = takeMismatches();
    expect(found.map((m) => m.operationId)).toEqual(['getMemberInOrganizationById', 'removeMemberFromOrganizationById']);
    expect(found[1].errors[0]).toMatch(/not 200/);
  });

  it('leaves refusals, routes GitBook does not have and answers that are not JSON alone', () => {
    checkAnswer(answer({ status: 404, payload: '{"error":{"code":404,"message":"x"}}' }));
    checkAnswer(answer({ url: '/healthz', payload: '{"status":"ok"}' }));
    checkAnswer(answer({ headers: { 'content-type': 'text/markdown' }, url: '/v1/orgs/org1/members/user1', payload: '# x' }));
    // A body that is not JSON where GitBook answers JSON is a mismatch all the same (the last one).
    expect(takeMismatches().map((m) => m.url)).toEqual(['/v1/orgs/org1/members/user1']);
  });
});
