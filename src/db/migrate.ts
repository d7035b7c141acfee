/** `npm run migrate`: applies pending migrations to DATABASE_URL and exits. */
import { loadConfig } from '../config.ts';
import { initOrm, migrate } from './orm.ts';

const config = loadConfig();
if (!config.databaseUrl) {
  console.error('DATABASE_URL is not set; `npm start` migrates its embedded database by itself.');
  process.exit(2);
}
const orm = await initOrm({ databaseUrl: config.databaseUrl, poolMax: 2 });
try {
  const ran = await migrate(orm);
  console.log(ran.length ? `Applied: ${ran.join(', ')}` : 'Database is up to date.');
} finally {
  await orm.close();
}
