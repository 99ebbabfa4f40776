/**
 * Several devices at once: a merged report with a testcase per scenario × device; a bug on one
 * device fails only its testcases; repeats spread over the devices; a device that dies mid-suite
 * yields unknown for what it was running, which --infra-retries runs again elsewhere while the
 * other devices finish.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AdbServer } from '../support/adb-server.js';
import { virtualLab } from '../support/lab.js';
import { runCli, startCli } from '../support/cli.js';

const CONFIG = 'fixtures/reference-app.config.json';

interface Report {
  verdict: string;
  scenarios: { name: string; device: string; verdict: string; repeat?: number; attempts?: number; error?: string }[];
  devices?: { serial: string; verdict: string; tainted?: boolean; error?: string }[];
  aggregate?: { name: string; trials: number; violations: number; interval95: { low: number; high: number } }[];
}

describe('dedup-verify run on several devices (virtual, real adb)', function () {
  this.timeout(300_000);
  const lab = virtualLab('dv-multi-');
  const devices = lab.devices;
  let adb: AdbServer;
  let work: string;
  before(() => ({ adb, work } = lab));

  async function report(dir: string): Promise<Report> {
    return JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
  }

  it('runs four devices in parallel into one report, and a bug on one device fails only its testcases', async () => {
    const good = await devices.startMany(3);
    const bad = await devices.start({ bugs: ['no-db-check'] });
    const all = [...good, bad];
    for (const d of all) await adb.connect(d.serial);
    const out = join(work, 'four');
    const r = await runCli(['run', '--config', CONFIG, '--adb-port', String(adb.port), ...all.flatMap((d) => ['--device', d.serial]), '--scenario', 'back-to-back', '--scenario', 'missed-run', '--out', out]);
    expect(r.code, r.stderr.slice(-2000)).to.equal(1);
    const rep = await report(out);
    expect(rep.scenarios).to.have.length(8);
    for (const s of rep.scenarios) {
      const expected = s.device === bad.serial && s.name === 'back-to-back' ? 'fail' : 'pass';
      expect(s.verdict, `${s.name} on ${s.device}`).to.equal(expected);
    }
    const junit = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).to.have.length(8);
    expect(junit.match(/<failure /g)).to.have.length(1);
    expect(rep.devices?.map((d) => [d.serial, d.verdict]).sort()).to.deep.equal(all.map((d) => [d.serial, d === bad ? 'fail' : 'pass']).sort());
  });

  it('spreads --repeat over the devices and reports violations / trials with a 95% interval', async () => {
    const two = await devices.startMany(2);
    for (const d of two) await adb.connect(d.serial);
    const out = join(work, 'repeat');
    const r = await runCli(['run', '--config', CONFIG, '--adb-port', String(adb.port), ...two.flatMap((d) => ['--device', d.serial]), '--scenario', 'back-to-back', '--repeat', '4', '--out', out]);
    expect(r.code, r.stderr.slice(-2000)).to.equal(0);
    const rep = await report(out);
    expect(rep.scenarios).to.have.length(4);
    expect(new Set(rep.scenarios.map((s) => s.device)).size).to.equal(2);
    // Every trial carries its number, the first one too.
    expect(rep.scenarios.map((s) => s.repeat).sort()).to.deep.equal([1, 2, 3, 4]);
    const agg = rep.aggregate?.find((a) => a.name === 'back-to-back');
    expect(agg?.trials).to.equal(4);
    expect(agg?.violations).to.equal(0);
    expect(agg?.interval95.low).to.equal(0);
    expect(agg?.interval95.high).to.be.within(0.4, 0.6);
  });

  it('SIGTERM: every scenario × device is in report.json and junit.xml, the ones not run as unknown with their device', async () => {
    const [a, b] = await devices.startMany(2);
    for (const d of [a!, b!]) await adb.connect(d.serial);
    const out = join(work, 'stopped');
    const scenarios = ['back-to-back', 'missed-run', 'oldest-first'];
    const run = startCli(['run', '--config', CONFIG, '--adb-port', String(adb.port), '--device', a!.serial, '--device', b!.serial, ...scenarios.flatMap((s) => ['--scenario', s]), '--out', out]);
    // Both devices are inside their first scenario.
    for (const d of [a!, b!]) await run.waitForStderr(new RegExp(`${d.serial.replace(/\./g, '\\.')} back-to-back \\[`));
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.code, r.stderr.slice(-2000)).to.equal(2);
    const rep = await report(out);
    const pairs = rep.scenarios.map((s) => `${s.name} on ${s.device}`).sort();
    expect(pairs, JSON.stringify(rep.scenarios)).to.deep.equal(scenarios.flatMap((n) => [a!, b!].map((d) => `${n} on ${d.serial}`)).sort());
    // What had not started is not run; at least the last scenario of each device.
    const notRun = rep.scenarios.filter((s) => s.error === 'not run: interrupted');
    for (const d of [a!, b!]) expect(notRun.map((s) => `${s.name} on ${s.device}`)).to.include(`oldest-first on ${d.serial}`);
    for (const s of notRun) expect(s.verdict).to.equal('unknown');
    expect(r.stderr).to.include(`] ${notRun.length} trial(s) not run\n`);
    const junit = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(junit).to.not.match(/hostname=""|name="dedup-verify\."|classname="dedup-verify\."/);
    expect(junit.match(/<testcase /g)).to.have.length(6);
    for (const d of [a!, b!]) expect(junit).to.include(`<testsuite name="dedup-verify.${d.serial}" tests="3"`);
    expect(r.stdout).to.not.match(/ on {2}\(/);
  });

  it('retries what a dying device was running on another device, and the others finish', async () => {
    const [a, b] = await devices.startMany(2);
    for (const d of [a!, b!]) await adb.connect(d.serial);
    const out = join(work, 'dies');
    const scenarios = ['back-to-back', 'db-is-truth', 'missed-run', 'oldest-first', 'title-edit', 'malformed-entries'];
    const run = startCli([
      'run', '--config', CONFIG, '--adb-port', String(adb.port), '--device', a!.serial, '--device', b!.serial,
      ...scenarios.flatMap((s) => ['--scenario', s]), '--infra-retries', '1', '--out', out,
    ]);
    // Kill device A in the middle of its second scenario.
    await run.waitForStderr(new RegExp(`${a!.serial.replace(/\./g, '\\.')} (db-is-truth|missed-run|oldest-first|title-edit|malformed-entries) \\[`));
    await a!.close();
    const r = await run.done;
    const rep = await report(out);
    // Nothing failed; every trial of the dead device was run again on the surviving one.
    expect(rep.scenarios.filter((s) => s.verdict === 'fail')).to.deep.equal([]);
    for (const name of scenarios) {
      const onB = rep.scenarios.filter((s) => s.name === name && s.device === b!.serial && s.verdict === 'pass');
      expect(onB.length, `${name}: ${JSON.stringify(rep.scenarios.filter((s) => s.name === name))}`).to.be.at.least(1);
    }
    const retried = rep.scenarios.filter((s) => (s.attempts ?? 1) > 1);
    expect(retried.length).to.be.at.least(4);
    for (const s of retried) expect([s.device, s.verdict]).to.deep.equal([b!.serial, 'pass']);
    const deadDevice = rep.devices?.find((d) => d.serial === a!.serial);
    expect(deadDevice?.verdict).to.equal('unknown');
    expect(deadDevice?.error).to.be.a('string');
    // The dead device could not be restored: the run cannot say the device is clean.
    expect(r.code).to.equal(2);
  });
});
