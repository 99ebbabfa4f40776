/**
 * The DedupStore of a config with no `database`: the app keeps its record where dedup-verify
 * cannot read it (or keeps none). Nothing is read, so no run "stored" anything, and the scenarios
 * that need a record (to forget it, to read its rows and schema, to tell a repeat after a kill
 * from one after the item was recorded) do not apply to such a config (their notApplicable); none
 * of them may run against this store, which refuses to forget or read what it cannot see.
 */
import type { RowJoins } from '../../android/notification-mapping.js';
import type { ShellRead } from '../../android/shell-reads.js';
import { DedupVerifyError, ErrorCode } from '../../errors.js';
import type { DbSnapshot } from '../harness.js';
import type { DedupStore } from './dedup-store.js';
import { SnapshotStore } from './snapshot-store.js';

function noRecord(what: string): DedupVerifyError {
  return new DedupVerifyError(ErrorCode.Internal, `the config has no "database": there is no record to ${what} (a scenario that needs one does not apply to this config)`);
}

export class NoRecordStore extends SnapshotStore<null> implements DedupStore<null> {
  keysRead(): ShellRead<null> {
    return { commands: [], parse: () => null };
  }

  protected recordedSince(): string[] {
    return [];
  }

  forget(): Promise<void> {
    return Promise.reject(noRecord('forget'));
  }

  cleared(): void {
    this.adopt(null);
  }

  readDatabase(): Promise<DbSnapshot> {
    return Promise.reject(noRecord('read'));
  }

  inspectSchema(): void {
    throw noRecord('inspect');
  }

  joins(): RowJoins {
    return {};
  }
}
