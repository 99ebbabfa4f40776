import { expect } from 'chai';
import { classifyFailReply, failReplyText, mapOpenFailure } from '../../../src/device/adb-errors.js';
import { DedupVerifyError, DeviceCommandError } from '../../../src/errors.js';

function failError(text: string): Error {
  const e = new Error(`Failure: '${text}'`);
  e.name = 'FailError';
  return e;
}

const context = (connected: string[]) => ({
  endpoint: { host: '127.0.0.1', port: 5137 },
  serial: 'emulator-5554',
  service: 'shell,v2,raw:id',
  listConnected: () => Promise.resolve(connected),
});

describe('adb failures at the edge', () => {
  it('reads adbkit FailError texts', () => {
    expect(failReplyText(failError("device 'x' not found"))).to.equal("device 'x' not found");
    expect(failReplyText(new Error('other'))).to.equal(undefined);
  });

  it('classifies adb server FAIL replies', () => {
    expect(classifyFailReply("device 'emulator-5554' not found")).to.equal('not-found');
    expect(classifyFailReply('no devices/emulators found')).to.equal('not-found');
    expect(classifyFailReply('device offline')).to.equal('offline');
    expect(classifyFailReply('device unauthorized.\nThis adb server')).to.equal('unauthorized');
    expect(classifyFailReply('closed')).to.equal('refused');
  });

  it('names the connected devices when the serial is unknown', async () => {
    const error = await mapOpenFailure(failError("device 'emulator-5554' not found"), context(['127.0.0.1:15555', 'emulator-5556']));
    expect(error).to.be.instanceOf(DedupVerifyError).with.property('code', 'DV_DEVICE_NOT_FOUND');
    expect(error.message).to.equal('No device "emulator-5554" (connected: 127.0.0.1:15555, emulator-5556). Is the emulator running? Try `adb devices`.');
    const none = await mapOpenFailure(failError("device 'emulator-5554' not found"), context([]));
    expect(none.message).to.include('(connected: none)');
  });

  it('maps a refused server connection to DV_ADB_SERVER with the fix', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5137'), { code: 'ECONNREFUSED' });
    const error = await mapOpenFailure(refused, context([]));
    expect(error).to.have.property('code', 'DV_ADB_SERVER');
    expect(error.message).to.match(/^No adb server on 127\.0\.0\.1:5137 .*`adb -P 5137 start-server`/);
  });

  it('maps offline to DV_DEVICE_GONE and a refused service to DeviceCommandError', async () => {
    expect(await mapOpenFailure(failError('device offline'), context([]))).to.have.property('code', 'DV_DEVICE_GONE');
    const refused = await mapOpenFailure(failError('closed'), context([]));
    expect(refused).to.be.instanceOf(DeviceCommandError);
    expect(refused.message).to.include('refused the adb service "shell,v2,raw:id"');
  });
});
