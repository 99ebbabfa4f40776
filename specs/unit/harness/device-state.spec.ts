/**
 * The device state folders (src/harness/device-state.ts): named from a reversible encoding of
 * the serial that never gives `.`, `..` or a path, so no serial maps onto the state root or
 * the folder above it; a finished restore deletes what the save wrote and nothing else.
 */
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { decodeStateName, encodeStateName, readSavedState, stateDirFor, stateRoot } from '../../../src/harness/device-state.js';
import { evidenceFolderName } from '../../../src/harness/runner.js';

const SERIALS = ['.', '..', '../..', '/etc', 'a/../b', 'with space', 'émulateur-5554', '127.0.0.1:5555', '%2E', '', 'emulator-5554', 'adb-XYZ._adb-tls-connect._tcp'];

describe('device state folders', () => {
  let work: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'dv-state-'));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('every serial gets a folder of its own directly under the state root, and the name gives the serial back', () => {
    const env = { XDG_STATE_HOME: work };
    const names = SERIALS.map(encodeStateName);
    expect(new Set(names).size).to.equal(SERIALS.length);
    for (const [i, serial] of SERIALS.entries()) {
      const name = names[i]!;
      expect(name, serial).to.match(/^[A-Za-z0-9_%-]+$/);
      expect(dirname(stateDirFor(serial, env)), serial).to.equal(stateRoot(env));
      expect(decodeStateName(name), serial).to.equal(serial);
    }
    expect(encodeStateName('emulator-5554')).to.equal('emulator-5554');
    expect(encodeStateName('..')).to.equal('%2E%2E');
  });

  it('an evidence folder is never evidence/ itself or the folder above it', () => {
    expect(evidenceFolderName('.')).to.equal('_.');
    expect(evidenceFolderName('..')).to.equal('_..');
    expect(evidenceFolderName('127.0.0.1:5555')).to.equal('127.0.0.1_5555');
  });

  it('a serial of ".." finds no state in the state root, and its own state only in its folder', async () => {
    const env = { XDG_STATE_HOME: work };
    await mkdir(stateRoot(env), { recursive: true });
    await writeFile(join(stateRoot(env), 'state.json'), JSON.stringify({ serial: '..' }));
    expect(await readSavedState('..', env)).to.equal(null);
    await mkdir(stateDirFor('..', env));
    await writeFile(join(stateDirFor('..', env), 'state.json'), JSON.stringify({ serial: '..' }));
    expect(await readSavedState('..', env)).to.deep.equal({ serial: '..' });
  });

  it('finds a state an earlier version left under the old folder name', async () => {
    const env = { XDG_STATE_HOME: work };
    const legacy = join(stateRoot(env), '127.0.0.1_5555');
    await mkdir(legacy, { recursive: true });
    await writeFile(join(legacy, 'state.json'), JSON.stringify({ serial: '127.0.0.1:5555' }));
    expect(await readSavedState('127.0.0.1:5555', env)).to.deep.equal({ serial: '127.0.0.1:5555' });
    // Not another serial's that maps onto the same old name.
    expect(await readSavedState('127.0.0.1_5555', env)).to.equal(null);
    expect(JSON.parse(await readFile(join(legacy, 'state.json'), 'utf8'))).to.deep.equal({ serial: '127.0.0.1:5555' });
    expect(await readdir(stateRoot(env))).to.deep.equal(['127.0.0.1_5555']);
  });
});
