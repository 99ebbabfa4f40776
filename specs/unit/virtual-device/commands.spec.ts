import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createTestDevice, run, type TestDevice } from './shell-harness.js';
import type { Shell } from '../../../src/virtual-device/shell/shell.js';

describe('virtual device toybox commands', () => {
  let device: TestDevice;
  let shell: Shell;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    ({ device, shell, dispose } = await createTestDevice());
    device.fs.useClock(device.clock);
  });
  afterEach(async () => {
    await dispose();
  });

  describe('ls', () => {
    it('lists one name per line, sorted, hiding dotfiles unless -a', async () => {
      await run(shell, 'cd /data/local/tmp && touch b a .hidden && mkdir d');
      expect((await run(shell, 'ls /data/local/tmp')).stdout).to.equal('a\nb\nd\n');
      expect((await run(shell, 'ls -a /data/local/tmp')).stdout).to.equal('.\n..\n.hidden\na\nb\nd\n');
      expect((await run(shell, 'ls -1d /data/local/tmp')).stdout).to.equal('/data/local/tmp\n');
    });

    it('prints toybox\'s -l format with aligned columns and a total line', async () => {
      await run(shell, 'cd /data/local/tmp && echo hello > small && mkdir dir && chmod 640 small');
      const r = await run(shell, 'ls -l /data/local/tmp');
      const lines = r.stdout.split('\n');
      expect(lines[0]).to.match(/^total \d+$/);
      // 2024-05-29 16:26 is the device clock of the test device (UTC)
      expect(lines[1]).to.match(/^drwxrwxrwx \d+ shell shell 4096 2024-05-29 16:26 dir$/);
      expect(lines[2]).to.match(/^-rw-r----- 1 shell shell +6 2024-05-29 16:26 small$/);
      const sizeColumn = (line: string): number => line.indexOf(' 2024-');
      expect(sizeColumn(lines[1]!)).to.equal(sizeColumn(lines[2]!));
    });

    it('shows symlink targets and device numbers, and names unreadable paths', async () => {
      const r = await run(shell, 'ls -ld /sdcard /dev/null');
      expect(r.stdout).to.match(/^crw-rw-rw- 1 root root 1, +3 \d{4}-\d\d-\d\d \d\d:\d\d \/dev\/null\nlrwxrwxrwx 1 root root +\d+ [-\d]+ [:\d]+ \/sdcard -> \/storage\/self\/primary\n$/);
      const denied = await run(shell, 'ls /data; echo $?');
      expect(denied.stderr).to.equal('ls: /data: Permission denied\n');
      expect(denied.stdout).to.equal('1\n');
      const missing = await run(shell, 'ls /nope');
      expect(missing.stderr).to.equal('ls: /nope: No such file or directory\n');
      expect(missing.status).to.equal(1);
    });

    it('follows a symlink named with a trailing slash', async () => {
      expect((await run(shell, 'ls /sdcard/')).stdout).to.equal('Android\nDownload\n');
      expect((await run(shell, 'ls -d /sdcard')).stdout).to.equal('/sdcard\n');
    });

    it('prints headers when listing several directories', async () => {
      await run(shell, 'mkdir -p /data/local/tmp/p/q && touch /data/local/tmp/p/f /data/local/tmp/p/q/g');
      expect((await run(shell, 'cd /data/local/tmp/p && ls . q')).stdout).to.equal('.:\nf\nq\n\nq:\ng\n');
    });
  });

  describe('file commands', () => {
    it('cat concatenates files and stdin and reports missing ones', async () => {
      await device.fs.writeFile('/data/local/tmp/x', 2000, 'X\n');
      const r = await run(shell, 'cat /data/local/tmp/x - /nope /data/local/tmp/x', { stdin: 'IN\n' });
      expect(r.stdout).to.equal('X\nIN\nX\n');
      expect(r.stderr).to.equal('cat: /nope: No such file or directory\n');
      expect(r.status).to.equal(1);
    });

    it('rm removes files, refuses directories without -r and ignores missing files with -f', async () => {
      const r = await run(shell, 'cd /data/local/tmp; mkdir d; touch f; rm d; rm -r d f; rm -f nothing; echo $?; rm nothing');
      expect(r.stderr).to.equal('rm: d: Is a directory\nrm: nothing: No such file or directory\n');
      expect(r.stdout).to.equal('0\n');
      expect(await device.fs.exists('/data/local/tmp/d')).to.equal(false);
    });

    it('rm cannot remove system files as shell', async () => {
      const r = await run(shell, 'rm /system/bin/sh');
      expect(r.stderr).to.equal('rm: /system/bin/sh: Permission denied\n');
      expect(r.status).to.equal(1);
    });

    it('mkdir -p makes parents and reports an existing directory', async () => {
      const r = await run(shell, 'mkdir -p /data/local/tmp/a/b && mkdir /data/local/tmp/a; mkdir -m 700 /data/local/tmp/c; stat -c %a /data/local/tmp/c');
      expect(r.stderr).to.equal("mkdir: '/data/local/tmp/a': File exists\n");
      expect(r.stdout).to.equal('700\n');
    });

    it('cp copies files and trees; mv renames', async () => {
      await device.fs.writeFile('/data/local/tmp/src', 2000, 'data');
      const r = await run(shell, 'cd /data/local/tmp; cp src dst && mkdir t && cp src t && cp -r t t2 && mv dst moved && cat moved t/src t2/src; cp t t3');
      expect(r.stdout).to.equal('datadatadata');
      expect(r.stderr).to.equal("cp: Skipped dir 't'\n");
      const miss = await run(shell, 'mv /data/local/tmp/none /data/local/tmp/x');
      expect(miss.stderr).to.equal("mv: bad '/data/local/tmp/none': No such file or directory\n");
    });

    it('chmod sets octal and symbolic modes and reports failures as toybox does', async () => {
      const r = await run(shell, 'cd /data/local/tmp; touch f; chmod 600 f; stat -c %A f; chmod u+x,g+r f; stat -c %a f; chmod 777 /system/bin/sh');
      expect(r.stdout).to.equal('-rw-------\n740\n');
      expect(r.stderr).to.equal("chmod: chmod '/system/bin/sh' to 0777: Operation not permitted\n");
    });

    it('touch creates files and sets times from -t', async () => {
      const r = await run(shell, 'cd /data/local/tmp; touch -t 202001021530.45 t; stat -c %Y t');
      expect(r.stdout).to.equal(`${Date.UTC(2020, 0, 2, 15, 30, 45) / 1000}\n`);
    });

    it('stat prints -c formats and the default report', async () => {
      await device.fs.writeFile('/data/local/tmp/s', 2000, '12345', { mode: 0o644 });
      const r = await run(shell, 'stat -c "%s %a %U:%G %F %n" /data/local/tmp/s; stat /data/local/tmp/s');
      const lines = r.stdout.split('\n');
      expect(lines[0]).to.equal('5 644 shell:shell regular file /data/local/tmp/s');
      expect(lines[1]).to.equal('  File: /data/local/tmp/s');
      expect(lines[2]).to.match(/^ {2}Size: 5\t Blocks: \d+\t IO Blocks: 512\t regular file$/);
      expect(lines[4]).to.equal('Access: (0644/-rw-r--r--)\tUid: ( 2000/   shell)\tGid: ( 2000/   shell)');
    });

    it('hashes files like md5sum and sha256sum', async () => {
      await device.fs.writeFile('/data/local/tmp/h', 2000, 'abc');
      const r = await run(shell, 'md5sum /data/local/tmp/h; sha256sum /data/local/tmp/h; echo -n abc | sha1sum');
      const md5 = createHash('md5').update('abc').digest('hex');
      const sha256 = createHash('sha256').update('abc').digest('hex');
      const sha1 = createHash('sha1').update('abc').digest('hex');
      expect(r.stdout).to.equal(`${md5}  /data/local/tmp/h\n${sha256}  /data/local/tmp/h\n${sha1}  -\n`);
    });

    it('tee, ln -s, readlink, realpath and rmdir', async () => {
      const r = await run(shell, 'cd /data/local/tmp; echo t | tee copy; cat copy; ln -s copy link; readlink link; realpath link; mkdir e; rmdir e; rmdir /data/local/tmp; echo $?', { stdin: '' });
      expect(r.stdout).to.equal('t\nt\ncopy\n/data/local/tmp/copy\n1\n');
      expect(r.stderr).to.equal("rmdir: '/data/local/tmp': Permission denied\n");
    });

    it('which finds binaries on PATH', async () => {
      const r = await run(shell, 'which ls getprop; which nope; echo $?');
      expect(r.stdout).to.equal('/system/bin/ls\n/system/bin/getprop\n1\n');
    });
  });

  describe('identity and environment', () => {
    it('id prints the shell user with adbd\'s groups and SELinux context', async () => {
      const r = await run(shell, 'id');
      expect(r.stdout).to.equal(
        'uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0\n',
      );
      expect((await run(shell, 'id -u; id -un; whoami; id -g')).stdout).to.equal('2000\nshell\nshell\n2000\n');
    });

    it('id as root after adb root', async () => {
      device.adbdIsRoot = true;
      expect((await run(shell, 'id')).stdout).to.match(/^uid=0\(root\) gid=0\(root\) groups=0\(root\),1004\(input\),.* context=u:r:su:s0\n$/);
    });

    it('id on API 30 has no readtracefs group', async () => {
      const api30 = await createTestDevice({ apiLevel: 30 });
      try {
        expect((await run(api30.shell, 'id')).stdout).to.not.include('readtracefs');
      } finally {
        await api30.dispose();
      }
    });

    it('env prints the environment and runs commands with changes', async () => {
      const r = await run(shell, 'env | grep -c "^PATH="; env -i FOO=1 env; env nope_cmd; echo $?');
      expect(r.stdout).to.equal("1\nFOO=1\n127\n");
      expect(r.stderr).to.equal("env: 'nope_cmd': No such file or directory\n");
    });

    it('pwd prints the working directory', async () => {
      expect((await run(shell, 'cd /sdcard && pwd && /system/bin/pwd -P')).stdout).to.equal('/sdcard\n/storage/emulated/0\n');
    });
  });

  describe('properties', () => {
    it('getprop lists sorted [key]: [value] lines and prints single values', async () => {
      const all = (await run(shell, 'getprop')).stdout.split('\n').filter((l) => l !== '');
      expect(all).to.include('[ro.build.version.sdk]: [34]');
      expect(all).to.include('[sys.boot_completed]: [1]');
      expect([...all].sort()).to.deep.equal(all);
      expect((await run(shell, 'getprop ro.build.version.sdk; getprop no.such; getprop no.such dflt')).stdout).to.equal('34\n\ndflt\n');
    });

    it('setprop sets debug properties as shell but not read-only or protected ones', async () => {
      const ok = await run(shell, 'setprop debug.dv.test 1 && getprop debug.dv.test');
      expect(ok.stdout).to.equal('1\n');
      const ro = await run(shell, 'setprop ro.build.version.sdk 99');
      expect(ro.status).to.equal(1);
      expect(ro.stderr).to.equal("Failed to set property 'ro.build.version.sdk' to '99'.\nSee dmesg for error reason.\n");
      expect((await run(shell, 'setprop persist.sys.timezone Europe/Paris')).status).to.equal(1);
      device.adbdIsRoot = true;
      expect((await run(shell, 'setprop persist.sys.timezone Europe/Paris && getprop persist.sys.timezone')).stdout).to.equal('Europe/Paris\n');
      expect((await run(shell, 'setprop ro.build.version.sdk 99')).status).to.equal(1);
      expect((await run(shell, "setprop 'bad name' x")).stderr).to.equal("Invalid character ' ' in name 'bad name'\n");
    });
  });

  describe('text filters', () => {
    it('head and tail take lines and bytes', async () => {
      const input = 'l1\nl2\nl3\nl4\n';
      expect((await run(shell, 'head -n 2', { stdin: input })).stdout).to.equal('l1\nl2\n');
      expect((await run(shell, 'head -3', { stdin: input })).stdout).to.equal('l1\nl2\nl3\n');
      expect((await run(shell, 'tail -n 2', { stdin: input })).stdout).to.equal('l3\nl4\n');
      expect((await run(shell, 'tail -n +3', { stdin: input })).stdout).to.equal('l3\nl4\n');
      expect((await run(shell, 'head -c 4', { stdin: input })).stdout).to.equal('l1\nl');
    });

    it('wc counts with toybox spacing', async () => {
      expect((await run(shell, 'wc -l', { stdin: 'a\nb\n' })).stdout).to.equal('2\n');
      expect((await run(shell, 'wc', { stdin: 'one two\nthree\n' })).stdout).to.equal('      2       3      14\n');
      await device.fs.writeFile('/data/local/tmp/w', 2000, 'x y\n');
      expect((await run(shell, 'wc /data/local/tmp/w')).stdout).to.equal('1 2 4 /data/local/tmp/w\n');
    });

    it('grep matches basic, extended and fixed patterns with exit status', async () => {
      const input = 'alpha\nbeta\ngamma\nALPHA\n';
      expect((await run(shell, 'grep -i alpha', { stdin: input })).stdout).to.equal('alpha\nALPHA\n');
      expect((await run(shell, 'grep -c a', { stdin: input })).stdout).to.equal('3\n');
      expect((await run(shell, 'grep -v a', { stdin: input })).stdout).to.equal('ALPHA\n');
      expect((await run(shell, "grep -E 'be|ga'", { stdin: input })).stdout).to.equal('beta\ngamma\n');
      expect((await run(shell, "grep 'a\\(l\\|m\\)'", { stdin: input })).stdout).to.equal('alpha\ngamma\n');
      expect((await run(shell, "grep -F 'a.'", { stdin: 'a.b\nab\n' })).stdout).to.equal('a.b\n');
      expect((await run(shell, 'grep -n eta', { stdin: input })).stdout).to.equal('2:beta\n');
      expect((await run(shell, 'grep -q zzz', { stdin: input })).status).to.equal(1);
      expect((await run(shell, 'grep -q beta', { stdin: input })).status).to.equal(0);
      expect((await run(shell, 'grep x /nope')).status).to.equal(2);
    });

    it('tr, cut, sort and uniq transform lines', async () => {
      expect((await run(shell, 'tr -d "\\r"', { stdin: 'a\r\nb\r\n' })).stdout).to.equal('a\nb\n');
      expect((await run(shell, 'tr a-z A-Z', { stdin: 'abc\n' })).stdout).to.equal('ABC\n');
      expect((await run(shell, 'cut -d: -f2', { stdin: 'a:b:c\nd:e\n' })).stdout).to.equal('b\ne\n');
      expect((await run(shell, 'cut -c 2-3', { stdin: 'abcd\n' })).stdout).to.equal('bc\n');
      expect((await run(shell, 'sort -n', { stdin: '10\n9\n100\n' })).stdout).to.equal('9\n10\n100\n');
      expect((await run(shell, 'sort -r', { stdin: 'a\nc\nb\n' })).stdout).to.equal('c\nb\na\n');
      expect((await run(shell, 'uniq -c', { stdin: 'a\na\nb\n' })).stdout).to.equal('      2 a\n      1 b\n');
    });

    it('printf formats numbers, strings and escapes, reusing the format', async () => {
      const r = await run(shell, `printf '%s=%03d|%x|%-4s|%5.2f\\n' a 7 255 b 3.14159; printf '%s,' x y z; printf '%b' 'q\\tr'`);
      expect(r.stdout).to.equal('a=007|ff|b   | 3.14\nx,y,z,q\tr');
    });

    it('seq, basename and dirname', async () => {
      expect((await run(shell, 'seq 3; basename /a/b/c.txt .txt; dirname /a/b/c.txt')).stdout).to.equal('1\n2\n3\nc\n/a/b\n');
    });
  });

  describe('processes', () => {
    it('ps lists the caller\'s processes, -A everything including what the model registers', async () => {
      device.processes.spawn({ name: 'com.example.feednotifier', uid: 10190, pid: 4321, ppid: 1 });
      const mine = (await run(shell, 'ps')).stdout.split('\n');
      expect(mine[0]).to.equal('USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME');
      expect(mine.slice(1).filter((l) => l !== '').map((l) => l.split(/\s+/).at(-1))).to.deep.equal(['sh', 'ps']);
      const all = (await run(shell, 'ps -A')).stdout;
      expect(all).to.match(/\nroot +1 +0 .* init\n/);
      expect(all).to.match(/\nu0_a190 +4321 +1 .* com\.example\.feednotifier\n/);
      expect((await run(shell, 'pidof com.example.feednotifier; pidof nothing; echo $?')).stdout).to.equal('4321\n1\n');
      expect((await run(shell, 'pgrep -l feednotifier; pgrep -x feednotifier; echo $?')).stdout).to.equal('4321 com.example.feednotifier\n1\n');
    });

    it('kill signals processes it may signal', async () => {
      let received: number | undefined;
      device.processes.spawn({ name: 'mine', uid: 2000, pid: 5555, onSignal: (s) => (received = s) });
      device.processes.spawn({ name: 'theirs', uid: 10190, pid: 5556 });
      const r = await run(shell, 'kill -9 5555; kill 5556; kill 99999');
      expect(received).to.equal(9);
      expect(r.stderr).to.equal('/system/bin/sh: kill: 5556: Operation not permitted\n/system/bin/sh: kill: 99999: No such process\n');
    });
  });
});
