import { expect } from 'chai';
import { hasNotificationPermission } from '../../../src/android/packages.js';
import { parseDumpsysPackage, parsePackageList } from '../../../src/android/parsers/packages.js';
import { loadFixture } from './fixtures.js';

describe('package manager parsers', () => {
  it('reads the captured dumpsys package block (and not the hidden system copy)', () => {
    const fixture = loadFixture('unknown/dumpsys-package.txt');
    expect(fixture.provenance).to.equal('captured');
    expect(parseDumpsysPackage(fixture.body, 'com.tekartik.package1')).to.deep.equal({
      pkg: 'com.tekartik.package1',
      uid: 10057,
      versionCode: 20,
      versionName: '1.0.16',
      minSdk: 27,
      targetSdk: 36,
      flags: ['SYSTEM', 'HAS_CODE', 'ALLOW_CLEAR_USER_DATA', 'UPDATED_SYSTEM_APP', 'ALLOW_BACKUP'],
      debuggable: false,
      dataDir: '/data/user/0/com.tekartik.package1',
      requestedPermissions: [
        'android.permission.WAKE_LOCK',
        'com.google.android.wearable.permission.RECEIVE_COMPLICATION_DATA',
        'android.permission.ACCESS_NETWORK_STATE',
        'com.tekartik.package1.DYNAMIC_RECEIVER_NOT_EXPORTED_PERMISSION',
      ],
      installPermissions: {
        'android.permission.ACCESS_NETWORK_STATE': true,
        'com.tekartik.package1.DYNAMIC_RECEIVER_NOT_EXPORTED_PERMISSION': true,
        'android.permission.WAKE_LOCK': true,
      },
      users: [
        {
          userId: 0,
          installed: true,
          stopped: false,
          runtimePermissions: { 'com.google.android.wearable.permission.RECEIVE_COMPLICATION_DATA': true },
        },
      ],
    });
  });

  it('reads the reference app: debuggable, POST_NOTIFICATIONS granted at runtime', () => {
    const info = parseDumpsysPackage(loadFixture('34/dumpsys-package.txt').body, 'com.example.feednotifier');
    expect(info).to.deep.include({ uid: 10190, versionCode: 9, targetSdk: 34, debuggable: true });
    expect(info?.users[0]?.runtimePermissions).to.deep.equal({ 'android.permission.POST_NOTIFICATIONS': true });
    expect(info === null ? null : hasNotificationPermission(info, 34)).to.equal(true);
  });

  it('knows POST_NOTIFICATIONS is a runtime permission only from API 33', () => {
    const info = parseDumpsysPackage(loadFixture('unknown/dumpsys-package.txt').body, 'com.tekartik.package1');
    expect(info === null ? null : hasNotificationPermission(info, 33)).to.equal(false);
    expect(info === null ? null : hasNotificationPermission(info, 30)).to.equal(true);
  });

  it('returns null for a package that is not in the dump', () => {
    expect(parseDumpsysPackage(loadFixture('34/dumpsys-package.txt').body, 'com.example.other')).to.equal(null);
  });

  it('reads pm list packages / pm path', () => {
    expect(parsePackageList(loadFixture('34/pm-list-packages.txt').body)).to.deep.equal(['com.android.shell', 'com.example.feednotifier', 'android']);
    expect(parsePackageList('package:/data/app/~~x==/com.example-y==/base.apk\r\n')).to.deep.equal(['/data/app/~~x==/com.example-y==/base.apk']);
    expect(parsePackageList('')).to.deep.equal([]);
  });
});
