import { expect } from 'chai';
import { createTestDevice, run, stdinOf, WatchedSink, type TestDevice } from './shell-harness.js';
import type { Shell } from '../../../src/virtual-device/shell/shell.js';
import { CaptureSink } from '../../../src/virtual-device/shell/streams.js';

describe('virtual device shell (mksh semantics)', () => {
  let device: TestDevice;
  let shell: Shell;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    ({ device, shell, dispose } = await createTestDevice());
  });
  afterEach(async () => {
    await dispose();
  });

  describe('quoting and words', () => {
    it('keeps single-quoted text literal and joins adjacent quoted parts', async () => {
      const r = await run(shell, `echo 'a  $HOME' "b  $USER" c\\ d e'f'"g"`);
      expect(r.stdout).to.equal('a  $HOME b  shell c d efg\n');
    });

    it('processes backslash escapes inside double quotes only before $ ` " \\', async () => {
      const r = await run(shell, `echo "\\$x \\"q\\" \\\\ \\n"`);
      // mksh's echo then turns the remaining \n into a newline
      expect(r.stdout).to.equal('$x "q" \\ \n\n');
    });

    it('interprets echo escapes by default (mksh), -n drops the newline, -E disables escapes', async () => {
      expect((await run(shell, `echo 'a\\tb'`)).stdout).to.equal('a\tb\n');
      expect((await run(shell, `echo -n hi`)).stdout).to.equal('hi');
      expect((await run(shell, `echo -E 'a\\tb'`)).stdout).to.equal('a\\tb\n');
      expect((await run(shell, `echo -x y`)).stdout).to.equal('-x y\n');
    });

    it('splits unquoted expansions on IFS but not quoted ones', async () => {
      const r = await run(shell, `X='a   b c'; for w in $X; do echo "[$w]"; done; for w in "$X"; do echo "<$w>"; done`);
      expect(r.stdout).to.equal('[a]\n[b]\n[c]\n<a   b c>\n');
    });

    it('treats comments as comments only at the start of a word', async () => {
      const r = await run(shell, 'echo a#b # a comment\necho c');
      expect(r.stdout).to.equal('a#b\nc\n');
    });
  });

  describe('variables', () => {
    it('expands $VAR, ${VAR}, defaults, lengths and trims', async () => {
      const r = await run(shell, 'A=hello; echo $A ${A}x ${B:-dflt} ${#A} ${A#he} ${A%lo} ${A:+set} "${B-unset}"');
      expect(r.stdout).to.equal('hello hellox dflt 5 llo hel set unset\n');
    });

    it('passes NAME=value prefixes only to that command', async () => {
      const r = await run(shell, 'FOO=bar env | grep ^FOO=; echo "after:$FOO"');
      expect(r.stdout).to.equal('FOO=bar\nafter:\n');
    });

    it('exports variables to commands', async () => {
      const r = await run(shell, 'export A=b; env | grep ^A=');
      expect(r.stdout).to.equal('A=b\n');
    });

    it('keeps the double quotes of adb logcat\'s export as the value \'\'', async () => {
      const r = await run(shell, `export ANDROID_LOG_TAGS="''"; env | grep ANDROID_LOG_TAGS`);
      expect(r.stdout).to.equal("ANDROID_LOG_TAGS=''\n");
    });

    it('sets $? and $$', async () => {
      const r = await run(shell, 'false; echo $?; true; echo $?; echo $$');
      const [a, b, pid] = r.stdout.trim().split('\n');
      expect([a, b]).to.deep.equal(['1', '0']);
      expect(Number(pid)).to.be.greaterThan(1);
    });

    it('provides adbd\'s environment for the shell user', async () => {
      const r = await run(shell, 'echo $USER $HOME $SHELL $TMPDIR $HOSTNAME; echo $PATH');
      expect(r.stdout.split('\n')[0]).to.equal('shell / /bin/sh /data/local/tmp emu64xa');
      expect(r.stdout).to.include('/system/bin');
    });

    it('provides mksh\'s EPOCHREALTIME and SECONDS from the device clock', async () => {
      device.clock.set(1800000000250);
      expect((await run(shell, 'echo $EPOCHREALTIME $SECONDS')).stdout).to.equal('1800000000.250000 0\n');
    });

    it('evaluates arithmetic with mksh\'s 32-bit wraparound', async () => {
      const r = await run(shell, 'x=5; echo $((x * 3 + 1)) $(( (2+3) % 4 )) $((2147483647 + 1))');
      expect(r.stdout).to.equal('16 1 -2147483648\n');
    });
  });

  describe('operators and exit codes', () => {
    it('runs ; && || with short-circuiting', async () => {
      const r = await run(shell, 'true && echo a; false && echo b; false || echo c; true || echo d');
      expect(r.stdout).to.equal('a\nc\n');
    });

    it('returns the status of exit N', async () => {
      expect((await run(shell, 'exit 7')).status).to.equal(7);
      expect((await run(shell, 'echo x; exit 3; echo y')).stdout).to.equal('x\n');
    });

    it('reports an unknown command as mksh does, with status 127', async () => {
      const r = await run(shell, 'no_such_cmd_x');
      expect(r.status).to.equal(127);
      expect(r.stderr).to.equal('/system/bin/sh: no_such_cmd_x: inaccessible or not found\n');
    });

    it('finds binaries by /system/bin path and reports a non-executable file with 126', async () => {
      expect((await run(shell, '/system/bin/echo hi')).stdout).to.equal('hi\n');
      await device.fs.writeFile('/data/local/tmp/notexec', 2000, 'echo no\n');
      const r = await run(shell, '/data/local/tmp/notexec');
      expect(r.status).to.equal(126);
      expect(r.stderr).to.equal("/system/bin/sh: /data/local/tmp/notexec: can't execute: Permission denied\n");
    });

    it('runs an executable script file', async () => {
      await device.fs.writeFile('/data/local/tmp/s.sh', 2000, '#!/system/bin/sh\necho "args:$1,$2"\nexit 4\n', { mode: 0o755 });
      const r = await run(shell, '/data/local/tmp/s.sh one two');
      expect(r.stdout).to.equal('args:one,two\n');
      expect(r.status).to.equal(4);
    });

    it('prints mksh syntax errors and exits 1', async () => {
      const fi = await run(shell, 'echo a; fi');
      expect(fi.status).to.equal(1);
      expect(fi.stdout).to.equal('');
      expect(fi.stderr).to.equal("/system/bin/sh: syntax error: unexpected 'fi'\n");
      expect((await run(shell, 'if true; then echo x')).stderr).to.equal("/system/bin/sh: syntax error: unmatched 'if'\n");
      expect((await run(shell, 'echo a &&')).stderr).to.equal('/system/bin/sh: syntax error: unexpected EOF\n');
      expect((await run(shell, "echo 'abc")).stderr).to.equal('/system/bin/sh: no closing quote\n');
      expect((await run(shell, 'echo a;; echo b')).stderr).to.equal("/system/bin/sh: syntax error: unexpected ';;'\n");
    });

    it('runs earlier lines before a later line\'s syntax error, as mksh parses line by line', async () => {
      const r = await run(shell, 'echo first\nfi');
      expect(r.stdout).to.equal('first\n');
      expect(r.status).to.equal(1);
    });

    it('negates with !', async () => {
      expect((await run(shell, '! false')).status).to.equal(0);
      expect((await run(shell, '! true')).status).to.equal(1);
    });
  });

  describe('redirections', () => {
    it('writes, appends and reads files', async () => {
      const r = await run(shell, 'cd /data/local/tmp; echo one > f; echo two >> f; cat < f; cat f | wc -l');
      expect(r.stdout).to.equal('one\ntwo\n2\n');
      expect((await device.fs.readFile('/data/local/tmp/f', 0)).toString()).to.equal('one\ntwo\n');
    });

    it('duplicates stderr onto stdout with 2>&1 and stdout onto stderr with 1>&2', async () => {
      const both = await run(shell, 'no_such_cmd 2>&1');
      expect(both.stdout).to.equal('/system/bin/sh: no_such_cmd: inaccessible or not found\n');
      expect(both.stderr).to.equal('');
      const err = await run(shell, 'echo err 1>&2');
      expect(err.stdout).to.equal('');
      expect(err.stderr).to.equal('err\n');
    });

    it('discards output sent to /dev/null, including the not-found message', async () => {
      const r = await run(shell, 'echo hidden >/dev/null; no_such 2>/dev/null; echo shown');
      expect(r.stdout).to.equal('shown\n');
      expect(r.stderr).to.equal('');
    });

    it('redirects any fd number and the order of redirections matters', async () => {
      const r = await run(shell, 'cd /data/local/tmp; ls /nope 2>err.txt; cat err.txt; ls /nope 2>&1 >/dev/null');
      expect(r.stdout).to.equal('ls: /nope: No such file or directory\nls: /nope: No such file or directory\n');
    });

    it('fails a redirection into a directory the shell cannot write, as mksh reports it', async () => {
      const r = await run(shell, 'echo x > /data/system/x; echo "status=$?"');
      expect(r.stderr).to.equal("/system/bin/sh: can't create /data/system/x: Permission denied\n");
      expect(r.stdout).to.equal('status=1\n');
    });

    it('reads here-documents', async () => {
      const r = await run(shell, 'X=v; cat <<EOF\nline $X\nEOF\ncat <<\'EOF\'\nraw $X\nEOF');
      expect(r.stdout).to.equal('line v\nraw $X\n');
    });
  });

  describe('pipes', () => {
    it('connects commands with streaming pipes', async () => {
      const r = await run(shell, 'printf "b\\na\\nb\\n" | sort | uniq -c | head -n 1');
      expect(r.stdout).to.equal('      1 a\n');
    });

    it('stops an endless producer when the reader exits (SIGPIPE)', async () => {
      const r = await run(shell, 'cat /dev/zero | head -c 100000 | wc -c; echo "done $?"');
      expect(r.stdout).to.equal('100000\ndone 0\n');
    });

    it('passes the shell\'s stdin to the first command', async () => {
      const r = await run(shell, 'cat | tr a-z A-Z', { stdin: 'hello\n' });
      expect(r.stdout).to.equal('HELLO\n');
    });
  });

  describe('command substitution', () => {
    it('substitutes $(...) and backquotes, trimming trailing newlines', async () => {
      const r = await run(shell, 'echo "[$(echo a; echo b)]" `echo c`');
      expect(r.stdout).to.equal('[a\nb] c\n');
    });

    it('nests substitutions and sets $? from the substitution of an assignment', async () => {
      const r = await run(shell, 'x=$(echo $(echo inner)); echo $x; y=$(false); echo $?');
      expect(r.stdout).to.equal('inner\n1\n');
    });
  });

  describe('compound commands', () => {
    it('runs if/elif/else', async () => {
      const r = await run(shell, 'if false; then echo a; elif true; then echo b; else echo c; fi');
      expect(r.stdout).to.equal('b\n');
    });

    it('runs while and until loops with break and continue', async () => {
      const r = await run(shell, 'i=0; while [ $i -lt 5 ]; do i=$((i+1)); [ $i -eq 2 ] && continue; [ $i -eq 4 ] && break; echo $i; done');
      expect(r.stdout).to.equal('1\n3\n');
      expect((await run(shell, 'n=0; until [ $n -ge 2 ]; do n=$((n+1)); echo $n; done')).stdout).to.equal('1\n2\n');
    });

    it('runs for loops over words and globs', async () => {
      await device.fs.writeFile('/data/local/tmp/a.txt', 2000, '');
      await device.fs.writeFile('/data/local/tmp/b.txt', 2000, '');
      await device.fs.writeFile('/data/local/tmp/c.log', 2000, '');
      const r = await run(shell, 'for f in /data/local/tmp/*.txt /data/local/tmp/*.none; do echo $f; done');
      expect(r.stdout).to.equal('/data/local/tmp/a.txt\n/data/local/tmp/b.txt\n/data/local/tmp/*.none\n');
    });

    it('matches case patterns', async () => {
      const r = await run(shell, 'for x in apple b.log zz; do case $x in a*) echo A;; *.log|*.txt) echo L;; *) echo other;; esac; done');
      expect(r.stdout).to.equal('A\nL\nother\n');
    });

    it('runs groups in the shell and subshells in a copy', async () => {
      const r = await run(shell, 'X=1; { X=2; }; echo $X; (X=3; cd /data); echo $X $PWD');
      expect(r.stdout).to.equal('2\n2 /\n');
    });

    it('defines and calls functions with positional parameters', async () => {
      const r = await run(shell, 'greet() { echo "hi $1 ($#)"; return 3; }; greet you there; echo $?');
      expect(r.stdout).to.equal('hi you (2)\n3\n');
    });
  });

  describe('builtins', () => {
    it('changes directory and reports a missing one', async () => {
      const r = await run(shell, 'cd /data/local/tmp && pwd; cd /nope; echo $?');
      expect(r.stdout).to.equal('/data/local/tmp\n1\n');
      expect(r.stderr).to.equal('/system/bin/sh: cd: /nope: No such file or directory\n');
    });

    it('cannot cd into an app data directory as shell', async () => {
      await device.fs.mkdir('/data/data/com.example', 0, { mode: 0o700, owner: { uid: 10190, gid: 10190 } });
      const r = await run(shell, 'cd /data/data/com.example');
      expect(r.status).to.equal(1);
      expect(r.stderr).to.equal('/system/bin/sh: cd: /data/data/com.example: Permission denied\n');
    });

    it('evaluates test and [ with strings, numbers and files', async () => {
      const r = await run(shell, '[ -d /data/local/tmp ] && echo dir; [ -f /system/bin/sh ] && echo file; test 3 -gt 2 && echo gt; [ -z "" ] && echo empty; [ a = b ] || echo ne');
      expect(r.stdout).to.equal('dir\nfile\ngt\nempty\nne\n');
      const bad = await run(shell, '[ 1 -eq 1');
      expect(bad.status).to.equal(2);
      expect(bad.stderr).to.equal('/system/bin/sh: [: missing ]\n');
    });

    it('reads lines with read', async () => {
      const r = await run(shell, 'while read a b; do echo "$b-$a"; done', { stdin: 'x y z\n1 2\n' });
      expect(r.stdout).to.equal('y z-x\n2-1\n');
    });

    it('runs sh -c with its own name in messages and $0/$1', async () => {
      const r = await run(shell, `sh -c 'echo "$0:$1"; nosuch' myname arg1`);
      expect(r.stdout).to.equal('myname:arg1\n');
      expect(r.stderr).to.equal('myname: nosuch: inaccessible or not found\n');
      const plain = await run(shell, `sh -c 'nosuch2; exit 9'`);
      expect(plain.stderr).to.equal('sh: nosuch2: inaccessible or not found\n');
      expect(plain.status).to.equal(9);
    });

    it('replaces the shell with exec', async () => {
      const r = await run(shell, 'exec echo replaced; echo never');
      expect(r.stdout).to.equal('replaced\n');
      const redirected = await run(shell, 'exec 2>/dev/null; no_such_y; echo ok');
      expect(redirected.stdout).to.equal('ok\n');
      expect(redirected.stderr).to.equal('');
    });

    it('describes commands with command -v and type', async () => {
      const r = await run(shell, 'command -v ls; command -v echo; command -v nope || echo missing; type ls');
      expect(r.stdout).to.equal('/system/bin/ls\necho\nmissing\nls is a tracked alias for /system/bin/ls\n');
    });

    it('runs as root after adb root', async () => {
      device.adbdIsRoot = true;
      expect((await run(shell, 'id -u')).stdout).to.equal('0\n');
    });

    it('finds commands other packages register, by name and by path', async () => {
      device.commands.register('am', async (ctx) => {
        await ctx.stdout.write(`am ${ctx.argv.slice(1).join(' ')} uid=${ctx.uid}\n`);
        return 0;
      });
      const r = await run(shell, 'am start -n x && /system/bin/am force-stop y');
      expect(r.stdout).to.equal('am start -n x uid=2000\nam force-stop y uid=2000\n');
    });

    it('lets commands run nested shells as another uid (run-as style)', async () => {
      device.commands.register('as-app', (ctx) => ctx.runNested('id -u; pwd', { uid: 10190, cwd: '/data/local/tmp' }));
      expect((await run(shell, 'as-app')).stdout).to.equal('10190\n/data/local/tmp\n');
    });
  });

  describe('sessions', () => {
    it('runs an interactive shell from stdin with mkshrc\'s prompt', async () => {
      const r = await run(shell, '', { stdin: 'echo hi\nfalse\nif true; then\necho multi\nfi\nexit 3\n' });
      expect(r.stdout).to.equal('hi\nmulti\n');
      expect(r.stderr).to.equal('emu64xa:/ $ emu64xa:/ $ 1|emu64xa:/ $ > > emu64xa:/ $ ');
      expect(r.status).to.equal(3);
    });

    it('runs a script piped into sh', async () => {
      const r = await run(shell, 'echo "echo from-stdin; exit 5" | sh; echo $?');
      expect(r.stdout).to.equal('from-stdin\n5\n');
    });

    it('passes TERM from the service arguments and honours cwd', async () => {
      const r = await run(shell, 'echo $TERM; pwd', { env: { TERM: 'xterm' }, cwd: '/data/local/tmp' });
      expect(r.stdout).to.equal('xterm\n/data/local/tmp\n');
    });
  });

  describe('streaming and aborts', () => {
    it('keeps adbkit\'s waitBootComplete loop printing until the stream closes', async () => {
      const controller = new AbortController();
      const stdout = new WatchedSink();
      const done = shell.run('while getprop sys.boot_completed 2>/dev/null; do sleep 1; done', {
        stdin: stdinOf(undefined, controller.signal),
        stdout,
        stderr: new CaptureSink(),
        signal: controller.signal,
      });
      await stdout.waitFor('1\n');
      controller.abort();
      const status = await done;
      expect(status).to.equal(129);
      expect(stdout.text().startsWith('1\n')).to.equal(true);
    });

    it('stops a sleeping command when aborted', async () => {
      const controller = new AbortController();
      const done = shell.run('sleep 100; echo never', { stdin: stdinOf(''), stdout: new CaptureSink(), stderr: new CaptureSink(), signal: controller.signal });
      controller.abort();
      expect(await done).to.equal(129);
    });

    it('kills a running command with kill and reports 128+signal', async () => {
      const r = await run(shell, 'sleep 100 & pid=$!; kill $pid; wait; echo waited');
      expect(r.stdout).to.equal('waited\n');
    });
  });
});
