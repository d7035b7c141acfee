import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { db } from '../../src/db/kysely.ts';
import { sql } from 'kysely';

/**
 * Every table the migrations create is an entity, and every entity says what the table holds:
 * the same columns, the same nullability, the same primary key. Kysely's types come from the
 * entities, so this is what makes a typed query's column names true.
 */
describe('entities against the migrated schema', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await initOrm({ databaseUrl: process.env.DATABASE_URL!, poolMax: 2 });
  });
  afterAll(async () => {
    await orm.close(true);
  });

  async function schema() {
    const em = orm.em.fork();
    const { rows } = await sql<{ table: string; column: string; nullable: boolean; primary: boolean }>`
      select c.table_name as "table", c.column_name as "column", c.is_nullable = 'YES' as nullable,
             exists (select 1 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
                     where i.indrelid = (quote_ident(c.table_name))::regclass and i.indisprimary and a.attname = c.column_name) as "primary"
        from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
       where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.table_name <> 'mikro_orm_migrations'`.execute(db(em));
    const tables = new Map<string, Map<string, { nullable: boolean; primary: boolean }>>();
    for (const row of rows) {
      if (!tables.has(row.table)) tables.set(row.table, new Map());
      tables.get(row.table)!.set(row.column, { nullable: row.nullable, primary: row.primary });
    }
    return tables;
  }

  function mapped() {
    const tables = new Map<string, Map<string, { nullable: boolean; primary: boolean }>>();
    for (const meta of orm.getMetadata().getAll().values()) {
      const columns = new Map<string, { nullable: boolean; primary: boolean }>();
      for (const prop of meta.props) {
        for (const field of prop.fieldNames ?? []) columns.set(field, { nullable: !!prop.nullable, primary: !!prop.primary });
      }
      tables.set(meta.tableName, columns);
    }
    return tables;
  }

  it('maps every table, and no table that does not exist', async () => {
    const actual = await schema();
    expect([...mapped().keys()].sort()).toEqual([...actual.keys()].sort());
    expect(actual.size).toBeGreaterThanOrEqual(40);
  });

  it('maps every column with its nullability and primary key', async () => {
    const actual = await schema();
    const entities = mapped();
    const drift: string[] = [];
    for (const [table, columns] of actual) {
      const entity = entities.get(table) ?? new Map();
      for (const [column, shape] of columns) {
        const prop = entity.get(column);
        if (!prop) drift.push(`${table}.${column}: not mapped`);
        else if (prop.nullable !== shape.nullable) drift.push(`${table}.${column}: nullable is ${shape.nullable}, mapped ${prop.nullable}`);
        else if (prop.primary !== shape.primary) drift.push(`${table}.${column}: primary is ${shape.primary}, mapped ${prop.primary}`);
      }
      for (const column of entity.keys()) if (!columns.has(column)) drift.push(`${table}.${column}: mapped, not in the table`);
    }
    expect(drift).toEqual([]);
  });
});
