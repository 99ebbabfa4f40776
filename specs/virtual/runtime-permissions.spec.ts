/**
 * `pm clear` resets the app's runtime permissions (API 33+: POST_NOTIFICATIONS goes, and every
 * later notify() is dropped before notification_enqueue). The scenarios that clear data grant it
 * back when the app had it, so they still see the app's notifications; the device is left with
 * the grants it had. Real CLI, real adb, virtual devices.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { virtualLab } from '../support/lab.js';

const PKG = 'com.example.feednotifier';
const GRANTED = /android\.permission\.POST_NOTIFICATIONS: granted=true/;

describe('runtime permissions around pm clear (virtual device, real adb)', function () {
  this.timeout(180_000);
  const lab = virtualLab('dv-perms-');

  async function grantLine(serial: string): Promise<string> {
    const dump = (await lab.adb.adb(['-s', serial, 'shell', `dumpsys package ${PKG}`])).stdout.toString('utf8');
    return dump.split('\n').find((l) => l.includes('android.permission.POST_NOTIFICATIONS:'))?.trim() ?? '(none)';
  }

  for (const api of [33, 34] as const) {
    it(`API ${api}: first-install and cold-process see the app's posts after pm clear, and the grant is there after the run`, async () => {
      const d = await lab.devices.start({ apiLevel: api });
      await lab.adb.connect(d.serial);
      expect((await lab.adb.adb(['-s', d.serial, 'shell', 'getprop ro.build.version.sdk'])).stdout.toString('utf8').trim()).to.equal(String(api));
      await lab.adb.adb(['-s', d.serial, 'shell', `pm grant ${PKG} android.permission.POST_NOTIFICATIONS`]);
      expect(await grantLine(d.serial)).to.match(GRANTED);
      const out = join(lab.work, `api${api}`);
      const state = await mkdtemp(join(tmpdir(), 'dv-perms-state-'));
      try {
        const r = await runCli(
          ['run', '--device', d.serial, '--config', 'fixtures/reference-app.config.json', '--adb-port', String(lab.adb.port), '--scenario', 'first-install', '--scenario', 'cold-process', '--out', out],
          { env: { XDG_STATE_HOME: state } },
        );
        const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { scenarios: { name: string; verdict: string; counts: { notifiedCount: number } }[] };
        expect(report.scenarios.map((s) => [s.name, s.verdict]), r.stderr.slice(-2000)).to.deep.equal([['first-install', 'pass'], ['cold-process', 'pass']]);
        expect(report.scenarios.every((s) => s.counts.notifiedCount > 0)).to.equal(true);
        // The harness says what it did: pm clear, then the grant back.
        const actions = (await readFile(join(out, 'history.jsonl'), 'utf8')).split('\n').filter((l) => l.includes('"type":"action"') && /clear-app-data|"grant"/.test(l));
        expect(actions.map((l) => (JSON.parse(l) as { action: string }).action)).to.deep.equal(['clear-app-data', 'grant', 'clear-app-data', 'grant']);
        expect(r.code).to.equal(0);
        expect(await grantLine(d.serial)).to.match(GRANTED);
      } finally {
        await rm(state, { recursive: true, force: true });
      }
    });
  }
});
