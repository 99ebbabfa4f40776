import { expect } from 'chai';
import { DeviceExtensions, DuplicateExtensionError, extensionKey, MissingExtensionError } from '../../../src/virtual-device/extensions.js';
import { VirtualDevice } from '../../../src/virtual-device/device.js';
import { ANDROID_SYSTEM, AndroidSystem, getAndroidSystem, installAndroidModel } from '../../../src/virtual-device/system/index.js';

interface Counter {
  count: number;
}

describe('device extensions', () => {
  it('gives back what was provided, typed by the key', () => {
    const extensions = new DeviceExtensions();
    const COUNTER = extensionKey<Counter>('test.counter');
    const counter = { count: 1 };
    expect(extensions.provide(COUNTER, counter)).to.equal(counter);
    const read: Counter = extensions.get(COUNTER);
    read.count++;
    expect(read).to.equal(counter);
    expect(counter.count).to.equal(2);
    expect(extensions.find(COUNTER)).to.equal(counter);
    expect(extensions.has(COUNTER)).to.equal(true);
  });

  it('checks the value type against the key at compile time', () => {
    const extensions = new DeviceExtensions();
    const COUNT = extensionKey<number>('test.count');
    const NAME = extensionKey<string>('test.name');
    // @ts-expect-error a number key takes no string
    expect(() => extensions.provide(COUNT, 'seven')).not.to.throw();
    // @ts-expect-error a string key is not a number key
    const wrong: typeof COUNT = NAME;
    expect(wrong.name).to.equal('test.name');
    // @ts-expect-error the value of a number key is no string
    const s: string = extensions.get(COUNT);
    expect(s).to.equal('seven');
  });

  it('fails a read of a missing extension with an error naming it', () => {
    const extensions = new DeviceExtensions();
    const COUNTER = extensionKey<Counter>('test.counter');
    expect(() => extensions.get(COUNTER))
      .to.throw(MissingExtensionError, 'extension "test.counter" is not installed on this device')
      .with.property('key', COUNTER);
    expect(extensions.find(COUNTER)).to.equal(undefined);
    expect(extensions.has(COUNTER)).to.equal(false);
  });

  it('refuses a second provide of a key and keeps the first value', () => {
    const extensions = new DeviceExtensions();
    const COUNTER = extensionKey<Counter>('test.counter');
    const first = { count: 1 };
    extensions.provide(COUNTER, first);
    expect(() => extensions.provide(COUNTER, { count: 2 }))
      .to.throw(DuplicateExtensionError, 'extension "test.counter" is already installed on this device')
      .with.property('key', COUNTER);
    expect(extensions.get(COUNTER)).to.equal(first);
  });

  it('does not build the value of a refused install', () => {
    const extensions = new DeviceExtensions();
    const COUNTER = extensionKey<Counter>('test.counter');
    let built = 0;
    const create = (): Counter => ({ count: ++built });
    const first = extensions.install(COUNTER, create);
    expect(() => extensions.install(COUNTER, create)).to.throw(DuplicateExtensionError, '"test.counter"');
    expect(built).to.equal(1);
    expect(extensions.get(COUNTER)).to.equal(first);
  });

  it('tells keys apart by identity, not by name', () => {
    const extensions = new DeviceExtensions();
    const a = extensionKey<Counter>('test.same');
    const b = extensionKey<Counter>('test.same');
    extensions.provide(a, { count: 1 });
    expect(extensions.has(b)).to.equal(false);
    extensions.provide(b, { count: 2 });
    expect(extensions.get(a).count).to.equal(1);
    expect(extensions.get(b).count).to.equal(2);
  });
});

describe('the Android model as a device extension', () => {
  const devices: VirtualDevice[] = [];
  afterEach(async () => {
    for (const d of devices.splice(0)) await d.dispose();
  });

  it('is absent from a bare device, and a read of it names it', async () => {
    const device = await VirtualDevice.create({ serialHint: 'bare' });
    devices.push(device);
    expect(getAndroidSystem(device)).to.equal(undefined);
    expect(() => device.extensions.get(ANDROID_SYSTEM)).to.throw(MissingExtensionError, '"android.system"');
    expect(device.commands.has('am')).to.equal(false);
  });

  it('is installed once by VirtualDevice.create, and a second install is refused before it changes anything', async () => {
    const device = await VirtualDevice.create({ serialHint: 'model' }, [installAndroidModel]);
    devices.push(device);
    const system = device.extensions.get(ANDROID_SYSTEM);
    expect(system).to.be.instanceOf(AndroidSystem);
    expect(getAndroidSystem(device)).to.equal(system);
    const processes = device.processes.list();
    const am = device.commands.get('am');
    let error: unknown;
    await installAndroidModel(device).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(DuplicateExtensionError);
    expect(String(error)).to.include('"android.system"');
    expect(device.extensions.get(ANDROID_SYSTEM)).to.equal(system);
    expect(device.processes.list()).to.deep.equal(processes);
    expect(device.commands.get('am')).to.equal(am);
  });
});
