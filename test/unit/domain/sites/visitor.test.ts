import { describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { verifyVisitorToken } from '../../../../src/domain/sites/visitor.ts';

const key = 'site-signing-key';
const sign = (claims: object, secret = key, exp: string | number = '1h', alg = 'HS256') =>
  new SignJWT({ ...claims }).setProtectedHeader({ alg }).setIssuedAt().setExpirationTime(exp).sign(new TextEncoder().encode(secret));

describe('verifyVisitorToken', () => {
  it('accepts a token signed with the key and returns its own claims', async () => {
    expect(await verifyVisitorToken(await sign({ plan: 'pro' }), key)).toEqual({
      ok: true,
      claims: { plan: 'pro' },
      expires: expect.any(Number),
    });
  });

  it('refuses missing, expired, wrongly signed and other-algorithm tokens', async () => {
    expect(await verifyVisitorToken(undefined, key)).toEqual({ ok: false, reason: 'missing' });
    expect(await verifyVisitorToken(await sign({}, key, Math.floor(Date.now() / 1000) - 10), key)).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(await verifyVisitorToken(await sign({}, 'another key'), key)).toEqual({ ok: false, reason: 'invalid' });
    expect(await verifyVisitorToken(await sign({}, key, '1h', 'HS512'), key)).toEqual({ ok: false, reason: 'invalid' });
    expect(await verifyVisitorToken('garbage', key)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a correctly signed token that never expires (no exp claim)', async () => {
    const forever = await new SignJWT({ plan: 'pro' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .sign(new TextEncoder().encode(key));
    expect(await verifyVisitorToken(forever, key)).toEqual({ ok: false, reason: 'invalid' });
  });
});
