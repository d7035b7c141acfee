/**
 * `npm run -s admin -- <command>`: operator commands. Each prints exactly one JSON object on stdout.
 *
 *   bootstrap    --org "<title>" --email <email> [--name "<display name>"]  → {organizationId, userId, token}
 *   add-member   --org <organizationId> --email <email> --role <role|guest> → {userId, token}
 *   create-token --email <email> [--label <text>]                          → {userId, tokenId, token}
 *   revoke-token --token <token> | --token-id <id>                         → {revoked}
 *
 * Uses DATABASE_URL, or the embedded database of a running `npm start` when it is unset.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { forkEm, initOrm, migrate, transaction, type Em } from '../db/orm.ts';
import { createOrganization, findOrCreateUser, findUserByEmail, issueToken, revokeToken, setMembership } from '../db/accounts.ts';
import { organizationExists } from '../db/organizations.ts';
import { isRole } from '../domain/roles.ts';
import { embeddedDatabaseUrl } from '../lib/infra.ts';

class UsageError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function need(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

function email(values: Record<string, string | undefined>): string {
  const value = need(values, 'email').trim().toLowerCase();
  if (!EMAIL.test(value)) throw new UsageError(`--email "${value}" is not an email address`);
  return value;
}

const commands: Record<string, (em: Em, values: Record<string, string | undefined>) => Promise<object>> = {
  async bootstrap(em, values) {
    const title = need(values, 'org').trim();
    if (title.length < 2 || title.length > 255) throw new UsageError('--org must be 2 to 255 characters');
    const user = await findOrCreateUser(em, email(values), values.name);
    const org = await createOrganization(em, title);
    await setMembership(em, org.id, user.id, 'admin');
    const { token } = await issueToken(em, user.id, 'bootstrap');
    return { organizationId: org.id, userId: user.id, token };
  },
  async 'add-member'(em, values) {
    const orgId = need(values, 'org');
    const roleText = need(values, 'role');
    if (roleText !== 'guest' && !isRole(roleText))
      throw new UsageError('--role must be one of admin, create, review, edit, comment, read, guest');
    const role = isRole(roleText) ? roleText : null;
    if (!(await organizationExists(em, orgId))) throw new UsageError(`no organization ${orgId}`);
    const user = await findOrCreateUser(em, email(values), values.name);
    await setMembership(em, orgId, user.id, role);
    const { token } = await issueToken(em, user.id, `member of ${orgId}`);
    return { userId: user.id, token };
  },
  async 'create-token'(em, values) {
    const user = await findUserByEmail(em, email(values));
    if (!user) throw new UsageError('no user with that email');
    const { token, tokenId } = await issueToken(em, user.id, values.label ?? 'cli');
    return { userId: user.id, tokenId, token };
  },
  async 'revoke-token'(em, values) {
    const where = values.token ? { token: values.token } : values['token-id'] ? { tokenId: values['token-id'] } : null;
    if (!where) throw new UsageError('--token or --token-id is required');
    return { revoked: await revokeToken(em, where) };
  },
};

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const run = command ? commands[command] : undefined;
  if (!run) throw new UsageError(`usage: admin <${Object.keys(commands).join('|')}> [options]`);
  const { values } = parseArgs({
    args: rest,
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      label: { type: 'string' },
      token: { type: 'string' },
      'token-id': { type: 'string' },
    },
    strict: true,
  });
  const config = loadConfig();
  const orm = await initOrm({ databaseUrl: config.databaseUrl ?? embeddedDatabaseUrl(config.embeddedPostgresPort), poolMax: 2 });
  try {
    await migrate(orm);
    const result = await transaction(forkEm(orm), (em) => run(em, values as Record<string, string | undefined>));
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await orm.close();
  }
}

main().catch((error) => {
  process.stderr.write(
    `admin: ${error instanceof UsageError || error?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? error.message : (error?.stack ?? error)}\n`,
  );
  process.exit(error instanceof UsageError ? 2 : 1);
});
