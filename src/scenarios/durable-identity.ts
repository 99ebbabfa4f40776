import type { Scenario } from '../harness/types.js';
import { HOUR } from './time.js';

export const durableIdentity: Scenario = {
  name: 'durable-identity',
  summary: 'The dedup key column has a UNIQUE index; NULL legacy rows coexist; a replayed insert is ignored, not duplicated.',
  seed: {
    file: 'docs/sources/003_abb250718efb355d.txt',
    quote:
      'UnmatchedEntity gains a nullable notificationKey: String? = null with a unique index on it. […] Nullable is load-bearing: SQLite permits repeated NULLs in a unique index, so every pre-v9 row keeps a NULL key and coexists.',
  },
  catches: ['no-unique-index'],
  needs: {},
  notApplicable: (config) =>
    config.database === undefined
      ? 'the config has no "database": there is no table whose key column to inspect'
      : config.database.kind === 'watermark'
        ? 'database.kind "watermark" keeps one mark in SharedPreferences, no table: there is no key column to index and no row to insert again'
        : undefined,
  properties: ['rows', 'schema'],
  async run(h) {
    const served = await h.serveFeed([1, 2, 3].map((n) => ({ label: `item-${n}`, title: `Durable ${n}`, ageMs: n * HOUR })));
    h.step('forced run: rows are written');
    await h.forceRun();
    h.step('process death and replay');
    await h.restartApp();
    await h.forceRun();
    h.step('inspect the dedup table of a pulled copy');
    const db = await h.readDatabase();
    h.inspectSchema(db, served.find((s) => db.keys.includes(s.item))?.item);
  },
};
