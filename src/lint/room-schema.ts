/**
 * Room's exported schema JSON (`room.schemaLocation`, one `<version>.json` per database version
 * under a directory named after the database class). The format is Room's bundle classes,
 * androidx/androidx `room/room-migration/src/commonMain/kotlin/androidx/room/migration/bundle/`:
 * SchemaBundle.kt (`formatVersion`, `database`), DatabaseBundle.kt (`version`, `identityHash`,
 * `entities`, `views`, `setupQueries`), BaseEntityBundle.kt (`tableName`, `createSql`, `fields`,
 * `primaryKey`, `indices`, `foreignKeys`), FieldBundle.kt (`fieldPath`, `columnName`,
 * `affinity`, `notNull`, `defaultValue`), IndexBundle.kt (`name`, `unique`, `columnNames`,
 * `orders`, `createSql`), PrimaryKeyBundle.kt (`columnNames`, `autoGenerate`).
 *
 * A small JSON parser that keeps line numbers is used so findings point into the file.
 */

interface Located {
  readonly line: number;
  readonly column: number;
}
export type JsonNode =
  | (Located & { readonly kind: 'object'; readonly entries: ReadonlyMap<string, JsonNode> })
  | (Located & { readonly kind: 'array'; readonly items: readonly JsonNode[] })
  | (Located & { readonly kind: 'string'; readonly value: string })
  | (Located & { readonly kind: 'number'; readonly value: number })
  | (Located & { readonly kind: 'boolean'; readonly value: boolean })
  | (Located & { readonly kind: 'null' });

class JsonSyntaxError extends Error {}

/** Parses JSON text keeping the position of every value; undefined when it is not valid JSON. */
export function parseJsonWithLocations(text: string): JsonNode | undefined {
  let pos = 0;
  let line = 1;
  let lineStart = 0;
  const ws = (): void => {
    while (pos < text.length) {
      const c = text[pos];
      if (c === '\n') {
        line++;
        lineStart = pos + 1;
        pos++;
      } else if (c === ' ' || c === '\t' || c === '\r' || c === '\uFEFF') pos++;
      else break;
    }
  };
  const here = (): Located => ({ line, column: pos - lineStart + 1 });
  const fail = (): never => {
    throw new JsonSyntaxError(`invalid JSON at ${line}:${pos - lineStart + 1}`);
  };
  const str = (): string => {
    const start = pos;
    pos++;
    while (pos < text.length && text[pos] !== '"') {
      if (text[pos] === '\\') pos++;
      if (text[pos] === '\n') fail();
      pos++;
    }
    if (text[pos] !== '"') fail();
    pos++;
    return JSON.parse(text.slice(start, pos)) as string;
  };
  const value = (): JsonNode => {
    ws();
    const loc = here();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries = new Map<string, JsonNode>();
      ws();
      if (text[pos] === '}') {
        pos++;
        return { kind: 'object', entries, ...loc };
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail();
        const key = str();
        ws();
        if (text[pos] !== ':') fail();
        pos++;
        entries.set(key, value());
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return { kind: 'object', entries, ...loc };
        }
        fail();
      }
    }
    if (c === '[') {
      pos++;
      const items: JsonNode[] = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return { kind: 'array', items, ...loc };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return { kind: 'array', items, ...loc };
        }
        fail();
      }
    }
    if (c === '"') return { kind: 'string', value: str(), ...loc };
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(pos, pos + 40));
    if (!m) return fail();
    pos += m[0].length;
    if (m[0] === 'true' || m[0] === 'false') return { kind: 'boolean', value: m[0] === 'true', ...loc };
    if (m[0] === 'null') return { kind: 'null', ...loc };
    return { kind: 'number', value: Number(m[0]), ...loc };
  };
  try {
    const v = value();
    ws();
    if (pos !== text.length) return undefined;
    return v;
  } catch (e) {
    if (e instanceof JsonSyntaxError || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

export interface SchemaField {
  readonly columnName: string;
  readonly affinity: string;
  readonly notNull: boolean;
  readonly line: number;
  readonly column: number;
}

export interface SchemaIndex {
  readonly name: string;
  readonly unique: boolean;
  readonly columnNames: readonly string[];
  readonly line: number;
}

export interface SchemaEntity {
  readonly tableName: string;
  readonly fields: readonly SchemaField[];
  readonly primaryKey: { readonly columnNames: readonly string[]; readonly autoGenerate: boolean };
  readonly indices: readonly SchemaIndex[];
  readonly line: number;
  readonly column: number;
}

export interface RoomSchema {
  /** Display path of the JSON file. */
  readonly path: string;
  /** The directory the file is in: one per database class. */
  readonly dir: string;
  readonly version: number;
  readonly entities: readonly SchemaEntity[];
  /** Read from SQLDelight `.sq`/`.sqm` files (sqldelight.ts), not from Room's schema JSON. */
  readonly sqldelight?: boolean;
}

function get(node: JsonNode | undefined, key: string): JsonNode | undefined {
  return node?.kind === 'object' ? node.entries.get(key) : undefined;
}
function getString(node: JsonNode | undefined, key: string): string | undefined {
  const v = get(node, key);
  return v?.kind === 'string' ? v.value : undefined;
}
function getBool(node: JsonNode | undefined, key: string): boolean {
  const v = get(node, key);
  return v?.kind === 'boolean' ? v.value : false;
}
function getStrings(node: JsonNode | undefined, key: string): string[] {
  const v = get(node, key);
  return v?.kind === 'array' ? v.items.flatMap((x) => (x.kind === 'string' ? [x.value] : [])) : [];
}
function getArray(node: JsonNode | undefined, key: string): readonly JsonNode[] {
  const v = get(node, key);
  return v?.kind === 'array' ? v.items : [];
}

/** Reads a Room schema file; undefined when the text is not one (not JSON, or no `database.entities`). */
export function parseRoomSchema(path: string, text: string): RoomSchema | undefined {
  const root = parseJsonWithLocations(text);
  const database = get(root, 'database');
  const version = get(database, 'version');
  const entitiesNode = get(database, 'entities');
  if (get(root, 'formatVersion')?.kind !== 'number' || version?.kind !== 'number' || entitiesNode?.kind !== 'array') return undefined;
  const entities: SchemaEntity[] = entitiesNode.items.flatMap((e) => {
    const tableName = getString(e, 'tableName');
    if (tableName === undefined) return [];
    const fields: SchemaField[] = getArray(e, 'fields').flatMap((f) => {
      const columnName = getString(f, 'columnName');
      if (columnName === undefined) return [];
      const at = get(f, 'columnName') as JsonNode;
      return [{ columnName, affinity: getString(f, 'affinity') ?? '', notNull: getBool(f, 'notNull'), line: at.line, column: at.column }];
    });
    const pk = get(e, 'primaryKey');
    const indices: SchemaIndex[] = getArray(e, 'indices').map((ix) => ({
      name: getString(ix, 'name') ?? '',
      unique: getBool(ix, 'unique'),
      columnNames: getStrings(ix, 'columnNames'),
      line: ix.line,
    }));
    const at = get(e, 'tableName') as JsonNode;
    return [{
      tableName,
      fields,
      primaryKey: { columnNames: getStrings(pk, 'columnNames'), autoGenerate: getBool(pk, 'autoGenerate') },
      indices,
      line: at.line,
      column: at.column,
    }];
  });
  const slash = path.lastIndexOf('/');
  return { path, dir: slash >= 0 ? path.slice(0, slash) : '.', version: version.value, entities };
}

/**
 * Column names that hold a dedup key: the item's identity (link, url, guid) or an explicit key.
 * Matched on the column name, case- and separator-insensitive (`notification_key`, `notificationKey`).
 */
export function isKeyColumnName(name: string): boolean {
  const n = name.toLowerCase().replace(/_/g, '');
  return ['link', 'url', 'key', 'guid', 'notificationkey', 'dedupkey', 'itemkey', 'uniquekey', 'itemlink', 'itemurl'].includes(n);
}

/** Key-column priority for choosing the one column a dedup table is keyed on. */
export function keyColumnRank(name: string): number {
  const n = name.toLowerCase().replace(/_/g, '');
  const order = ['notificationkey', 'dedupkey', 'uniquekey', 'itemkey', 'key', 'link', 'itemlink', 'guid', 'url', 'itemurl'];
  const r = order.indexOf(n);
  return r < 0 ? order.length : r;
}
