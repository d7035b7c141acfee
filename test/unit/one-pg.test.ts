import { expect, it } from '@jest/globals';
import { createRequire } from 'node:module';

/**
 * The ORM, the change feed and everything else reach PostgreSQL through one copy of `pg`
 * (package.json `overrides`). With a second copy nested under the ORM, the API spent about a third
 * more CPU per uncached read (docs/performance.md).
 */
it('loads one copy of pg, the one the ORM uses', () => {
  const ours = createRequire(import.meta.url).resolve('pg');
  const orms = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/postgresql')).resolve('pg');
  expect(orms).toBe(ours);
});
