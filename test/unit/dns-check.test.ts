import { describe, expect, it } from '@jest/globals';
import { hostnameStatus, normalizeName } from '../../src/domain/dns-check.ts';

const TARGET = 'sites.docs.example.com';
const none = { cnames: [], addresses: [], targetAddresses: ['192.0.2.10'] };

describe('custom hostname DNS status', () => {
  it('is active, with the certificate unknown to the service, for a CNAME to the target in any case and with a trailing dot', () => {
    expect(hostnameStatus({ ...none, cnames: ['Sites.Docs.Example.com.'] }, TARGET)).toEqual({ status: 'ssl_unknown', active: true });
  });

  it('is active for an address of the target (an apex A record, or a CNAME through another name)', () => {
    expect(hostnameStatus({ ...none, addresses: ['192.0.2.10'] }, TARGET)).toEqual({ status: 'ssl_unknown', active: true });
    expect(hostnameStatus({ ...none, cnames: ['alias.example.net'], addresses: ['192.0.2.10'] }, TARGET).active).toBe(true);
  });

  it('is a wrong CNAME for a record that points elsewhere', () => {
    expect(hostnameStatus({ ...none, cnames: ['elsewhere.example.net'] }, TARGET)).toEqual({ status: 'dns_wrong_cname', active: false });
    expect(hostnameStatus({ ...none, addresses: ['198.51.100.1'] }, TARGET)).toEqual({ status: 'dns_wrong_cname', active: false });
  });

  it('is no CNAME when the hostname has no record yet', () => {
    expect(hostnameStatus(none, TARGET)).toEqual({ status: 'dns_no_cname', active: false });
  });

  it('is an internal error when a lookup failed and nothing found points at the target', () => {
    expect(hostnameStatus({ ...none, failure: 'ETIMEOUT' }, TARGET)).toEqual({ status: 'internal_error', active: false });
    expect(hostnameStatus({ ...none, cnames: ['elsewhere.example.net'], failure: 'ESERVFAIL' }, TARGET).status).toBe('internal_error');
    // What was found is enough when it points at the target.
    expect(hostnameStatus({ ...none, cnames: [TARGET], failure: 'ESERVFAIL' }, TARGET).active).toBe(true);
  });

  it('compares names in lower case without their trailing dot', () => {
    expect(normalizeName(' Docs.Example.COM. ')).toBe('docs.example.com');
  });
});
