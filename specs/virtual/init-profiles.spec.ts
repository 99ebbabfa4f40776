/**
 * `dedup-verify init` against each app profile of the reference app (virtual devices, real adb):
 * what it proposes has the shape of the profile's config in fixtures/profiles/ (a JobScheduler
 * job instead of WorkManager work, a notified flag with row ids, a subscription to attach, a
 * high-water mark), read only through adb. The per-run log line (work.resultLine) and the items'
 * channel are not on the device before a run: init asks the user to name them.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AdbDevice } from '../../src/device/adb-device.js';
import { inspectApp } from '../../src/cli/commands/init.js';
import { APP_PROFILES } from '../../src/virtual-device/apps/feed-notifier/app-profiles.js';
import { virtualLab } from '../support/lab.js';

const PKG = 'com.example.feednotifier';

async function fixtureConfig(profile: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(new URL(`../../fixtures/profiles/${profile}.config.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** A section without the keys init cannot read from a device before a run. */
function without(section: unknown, keys: readonly string[]): unknown {
  if (typeof section !== 'object' || section === null) return section;
  return Object.fromEntries(Object.entries(section).filter(([k]) => !keys.includes(k)));
}

describe('dedup-verify init against each app profile (virtual devices, real adb)', function () {
  this.timeout(120_000);
  const lab = virtualLab('dv-init-profiles-');

  for (const profile of APP_PROFILES) {
    it(`${profile}: proposes the shape of fixtures/profiles/${profile}.config.json`, async () => {
      const d = await lab.devices.start({ appProfile: profile });
      await lab.adb.connect(d.serial);
      await lab.adb.adb(['-s', d.serial, 'shell', `am start -n ${PKG}/.MainActivity`]);
      const device = await AdbDevice.open({ serial: d.serial, host: '127.0.0.1', port: lab.adb.port });
      try {
        const { pkg, config, notes } = await inspectApp(device, PKG, join(lab.work, `${profile}.config.json`));
        expect(pkg).to.equal(PKG);
        const expected = await fixtureConfig(profile);
        for (const key of ['app', 'windowMs', 'database', 'feed']) expect(config[key], key).to.deep.equal(expected[key]);
        expect(config['work'], 'work').to.deep.equal(without(expected['work'], ['resultLine']));
        expect(config['notifications'], 'notifications').to.deep.equal(without(expected['notifications'], ['channel']));
        if (profile === 'jobscheduler') expect(notes.confirm.some((l) => l.startsWith('work.resultLine: '))).to.equal(true);
      } finally {
        await device.close();
        await lab.devices.stopAll();
      }
    });
  }
});
