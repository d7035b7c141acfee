import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { classifyAddress, isHostAllowed, isIpLiteral } from '../../../src/domain/net.ts';
import type { AddressClass } from '../../../src/domain/net.ts';

const IPV4: [string, AddressClass][] = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
  ['0.0.0.0', 'reserved'],
  ['0.255.255.255', 'reserved'],
  ['1.0.0.0', 'public'],
  ['9.255.255.255', 'public'],
  ['10.0.0.0', 'private'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.64.0.0', 'private'],
  ['100.127.255.255', 'private'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.0.0.2', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['169.254.0.1', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.255.0.0', 'public'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['172.15.255.255', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.167.255.255', 'public'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', 'public'],
  ['198.17.255.255', 'public'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.20.0.0', 'public'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['223.255.255.255', 'public'],
  ['224.0.0.1', 'reserved'],
  ['239.255.255.250', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
];

const IPV6: [string, AddressClass][] = [
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['::', 'reserved'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::2', 'reserved'],
  ['::7f00:1', 'reserved'], // deprecated IPv4-compatible form
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'reserved'],
  ['ff05::1:3', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['2001::1', 'reserved'], // Teredo
  ['2001:2::1', 'reserved'], // benchmarking
  ['3fff::1', 'reserved'],
  ['100::1', 'reserved'],
  ['4000::1', 'reserved'], // outside 2000::/3
  ['fd00:ec2::254', 'metadata'],
  ['fd00:ec2::23', 'metadata'],
  ['fd00:ec2::253', 'private'],
  ['64:ff9b:1::1', 'private'],
];

const EMBEDDED: [string, AddressClass][] = [
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:0.0.0.0', 'reserved'],
  ['::ffff:8.8.8.8', 'public'],
  ['[::ffff:192.168.1.1]', 'private'],
  ['::ffff:0:127.0.0.1', 'loopback'], // IPv4-translated
  ['64:ff9b::127.0.0.1', 'loopback'], // NAT64
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::1', 'loopback'], // 6to4 around 127.0.0.1
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:0808:0808::1', 'public'],
];

describe('classifyAddress', () => {
  it.each(IPV4)('IPv4 %s is %s', (ip, expected) => expect(classifyAddress(ip)).toBe(expected));
  it.each(IPV6)('IPv6 %s is %s', (ip, expected) => expect(classifyAddress(ip)).toBe(expected));
  it.each(EMBEDDED)('IPv6 embedding IPv4 %s is %s', (ip, expected) => expect(classifyAddress(ip)).toBe(expected));

  it('reads the shorthand IPv4 forms resolvers accept', () => {
    expect(classifyAddress('127.1')).toBe('loopback');
    expect(classifyAddress('0177.0.0.1')).toBe('loopback');
    expect(classifyAddress('2130706433')).toBe('loopback');
  });

  it('refuses what is not an address', () => {
    for (const bad of ['', 'localhost', 'example.com', '1.2.3.4.5', '::g', '300.1.1.1']) {
      expect(() => classifyAddress(bad)).toThrow(/not an IP address/);
    }
  });

  it('classifies a mapped IPv6 address like the IPv4 address it carries', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(classifyAddress(`::ffff:${ip}`)).toBe(classifyAddress(ip));
      }),
    );
  });

  it('never calls an address in 10/8, 127/8, 169.254/16 or 192.168/16 public', () => {
    const byte = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.constantFrom('10', '127', '169.254', '192.168'), byte, byte, byte, (prefix, a, b, c) => {
        const ip = [prefix, a, b, c].join('.').split('.').slice(0, 4).join('.');
        expect(classifyAddress(ip)).not.toBe('public');
      }),
    );
  });
});

describe('isIpLiteral', () => {
  it('knows literals from names', () => {
    expect(isIpLiteral('127.0.0.1')).toBe(true);
    expect(isIpLiteral('::1')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('localhost')).toBe(false);
    expect(isIpLiteral('1.2.3.example')).toBe(false);
  });
});

describe('isHostAllowed', () => {
  const cases: [string, string[], boolean][] = [
    ['example.com', ['example.com'], true],
    ['EXAMPLE.com', ['example.COM'], true],
    ['example.com.', ['example.com'], true],
    ['example.com:8443', ['example.com'], true],
    ['example.com', ['example.com:8443'], false],
    ['example.com:8443', ['example.com:8443'], true],
    ['example.com:8080', ['example.com:8443'], false],
    ['www.example.com', ['example.com'], false],
    ['example.com', ['other.org', ' example.com '], true],
    ['api.example.com', ['*.example.com'], true],
    ['a.b.example.com', ['*.example.com'], true],
    ['api.example.com:9000', ['*.example.com'], true],
    ['example.com', ['*.example.com'], false],
    ['badexample.com', ['*.example.com'], false],
    ['example.com.evil.org', ['example.com', '*.example.com'], false],
    ['127.0.0.1', ['127.0.0.1'], true],
    ['127.0.0.1:3000', ['127.0.0.1'], true],
    ['127.0.0.2', ['127.0.0.1'], false],
    ['[::1]', ['::1'], true],
    ['[::1]:8080', ['[::1]'], true],
    ['[::1]:8080', ['[0:0:0:0:0:0:0:1]:8080'], true],
    ['[::1]:8080', ['[::1]:9090'], false],
    ['::1', ['[::1]'], true],
    ['', ['example.com'], false],
    ['example.com', [], false],
    ['example.com', [''], false],
    ['example.com', ['*.'], false],
  ];
  it.each(cases)('%s with %j → %s', (host, allow, expected) => expect(isHostAllowed(host, allow)).toBe(expected));
});
