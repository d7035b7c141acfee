import { Type } from 'typebox';
import { DNS_STATUSES, ERROR_STATUSES, SSL_STATUSES } from '../../domain/dns-check.ts';

const lit = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** The hostname of a path: matched against sites' `hostname` settings (any letter case). */
export const HostnameParams = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 512, description: 'The custom hostname, for example "docs.example.com"' }),
});

/** GitBook's CustomHostname, always of a site here (a site's `hostname` setting). */
export const CustomHostnameSchema = Type.Object({
  object: Type.Literal('custom-hostname'),
  hostname: Type.String(),
  target: Type.Object({ type: Type.Literal('site'), site: Type.String() }),
  isActive: Type.Boolean({ description: "True once DNS points at the sites' host (the certificate is not the service's to know)" }),
  status: Type.Union([lit(DNS_STATUSES), lit(SSL_STATUSES), lit(ERROR_STATUSES)], {
    description:
      'The last DNS check: `dns_no_cname` (no record yet), `dns_wrong_cname` (points elsewhere), `internal_error` (the lookup failed or ran out of time), `ssl_unknown` (DNS passed; the service does not issue certificates)',
  }),
  checkedAt: Type.String({ format: 'date-time', description: 'When the status was found' }),
  urls: Type.Object({ location: Type.String() }),
});
