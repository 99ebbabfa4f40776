import { expect } from 'chai';
import { isKeyColumnName, parseJsonWithLocations, parseRoomSchema } from '../../../src/lint/room-schema.js';
import { sqlBackfillProblems } from '../../../src/lint/rules/migration-backfill.js';
import { fromTables, splitStatements, tokenizeSql, whereColumns } from '../../../src/lint/sql.js';

const SCHEMA = `{
  "formatVersion": 1,
  "database": {
    "version": 9,
    "identityHash": "x",
    "entities": [
      {
        "tableName": "notifications",
        "createSql": "CREATE TABLE IF NOT EXISTS \`\${TABLE_NAME}\` (\`id\` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, \`link\` TEXT)",
        "fields": [
          { "fieldPath": "id", "columnName": "id", "affinity": "INTEGER", "notNull": true },
          { "fieldPath": "link", "columnName": "link", "affinity": "TEXT", "notNull": false }
        ],
        "primaryKey": { "autoGenerate": true, "columnNames": ["id"] },
        "indices": [
          { "name": "index_notifications_link", "unique": true, "columnNames": ["link"], "orders": [], "createSql": "…" }
        ],
        "foreignKeys": []
      }
    ],
    "views": [],
    "setupQueries": []
  }
}
`;

describe('lint Room schema and SQL', () => {
  it('parses a Room schema bundle with the line of every column', () => {
    expect(parseRoomSchema('app/schemas/com.example.Db/9.json', SCHEMA)).to.deep.equal({
      path: 'app/schemas/com.example.Db/9.json',
      dir: 'app/schemas/com.example.Db',
      version: 9,
      entities: [
        {
          tableName: 'notifications',
          line: 8,
          column: 22,
          fields: [
            { columnName: 'id', affinity: 'INTEGER', notNull: true, line: 11, column: 46 },
            { columnName: 'link', affinity: 'TEXT', notNull: false, line: 12, column: 48 },
          ],
          primaryKey: { columnNames: ['id'], autoGenerate: true },
          indices: [{ name: 'index_notifications_link', unique: true, columnNames: ['link'], line: 16 }],
        },
      ],
    });
  });

  it('ignores JSON that is not a Room schema, and text that is not JSON', () => {
    expect(parseRoomSchema('9.json', '{"version": 9}')).to.equal(undefined);
    expect(parseRoomSchema('9.json', '{"formatVersion": 1, "database": {"version": 9, "entities": [')).to.equal(undefined);
    expect(parseJsonWithLocations('[1, 2,]')).to.equal(undefined);
    expect(parseJsonWithLocations('{"a": [true, null, -1.5e2, "\\u0041"]}')).to.deep.equal({
      kind: 'object', line: 1, column: 1,
      entries: new Map([['a', { kind: 'array', line: 1, column: 7, items: [
        { kind: 'boolean', value: true, line: 1, column: 8 },
        { kind: 'null', line: 1, column: 14 },
        { kind: 'number', value: -150, line: 1, column: 20 },
        { kind: 'string', value: 'A', line: 1, column: 28 },
      ] }]]),
    });
  });

  it('knows key column names whatever their case and separators', () => {
    expect(['link', 'URL', 'guid', 'notificationKey', 'notification_key', 'dedup_key', 'title', 'id', 'keyboard'].map(isKeyColumnName)).to.deep.equal([
      true, true, true, true, true, true, false, false, false,
    ]);
  });

  it('reads quoted identifiers, strings, parameters and WHERE equality columns', () => {
    const [stmt] = splitStatements(tokenizeSql("SELECT EXISTS(SELECT 1 FROM `notifications` n WHERE n.link = :link AND title LIKE '%a;b%' AND [feed_id] IN (?1)) -- x;"));
    expect(whereColumns(stmt!)).to.deep.equal([{ table: 'n', column: 'link' }, { table: undefined, column: 'feed_id' }]);
    expect(fromTables(stmt!)).to.deep.equal(['notifications']);
  });

  it('finds back-fills of key columns in migration SQL, and leaves others alone', () => {
    const problems = (sql: string): string[] => splitStatements(tokenizeSql(sql)).flatMap((s) => sqlBackfillProblems(s).map((p) => `${p.table}.${p.column}: ${p.what}`));
    expect(problems('ALTER TABLE unmatched ADD COLUMN notificationKey TEXT NOT NULL DEFAULT \'\'')).to.deep.equal([
      "unmatched.notificationKey: adds it as NOT NULL DEFAULT ''",
    ]);
    expect(problems('ALTER TABLE unmatched ADD COLUMN notificationKey TEXT; CREATE UNIQUE INDEX i ON unmatched (notificationKey)')).to.deep.equal([]);
    expect(problems('ALTER TABLE unmatched ADD dismissedAt INTEGER NOT NULL DEFAULT 0')).to.deep.equal([]);
    expect(problems("UPDATE unmatched SET notificationKey = 'legacy:' || id, text = trim(text)")).to.deep.equal([
      'unmatched.notificationKey: fills it in for existing rows (UPDATE … SET)',
    ]);
    expect(problems('UPDATE unmatched SET notificationKey = NULL WHERE isDismissed = 1')).to.deep.equal([]);
    expect(problems('INSERT INTO t_new (id, link) SELECT id, link FROM t')).to.deep.equal([]);
    expect(problems('INSERT INTO t_new (id, link) SELECT id, url || \'#\' || id FROM t')).to.deep.equal(['t_new.link: fills it in for existing rows (INSERT … SELECT)']);
  });
});
