import { expect } from 'chai';
import type { Value } from '../../../src/lint/constants.js';
import { formatDuration } from '../../../src/lint/constants.js';
import type { SourceText } from '../../../src/lint/model.js';
import { buildProject } from '../../../src/lint/project.js';

/** Evaluates the initializer of `name` (declared once across the sources). */
function valueOf(sources: readonly SourceText[], name: string): { value: Value | undefined; refs: string[]; unresolved: readonly string[] } {
  const { project } = buildProject(sources);
  const decls = project.resolver.named(name);
  expect(decls, `declarations of ${name}`).to.have.length(1);
  const ev = project.resolver.evaluateDecl(decls[0]!);
  return { value: ev.value, refs: ev.refs.map((d) => `${d.file.path}:${d.name}`), unresolved: ev.unresolved };
}

const kt = (text: string, path = 'A.kt'): SourceText => ({ path, text });
const ms = (n: number): Value => ({ kind: 'number', value: n, type: 'long' });
const HOUR = 3_600_000;

describe('lint constant evaluation', () => {
  it('evaluates Long arithmetic with suffixes and separators', () => {
    expect(valueOf([kt('private const val W = 48L * 60L * 60L * 1000L')], 'W').value).to.deep.equal(ms(48 * HOUR));
    expect(valueOf([kt('const val W = 172_800_000L')], 'W').value).to.deep.equal(ms(48 * HOUR));
  });

  it('wraps Int arithmetic at 32 bits as the JVM does', () => {
    expect(valueOf([kt('const val W = 30 * 24 * 60 * 60 * 1000')], 'W').value).to.deep.equal({ kind: 'number', value: -1702967296, type: 'int' });
    expect(valueOf([kt('const val W = 30 * 24 * 60 * 60 * 1000L')], 'W').value).to.deep.equal(ms(30 * 24 * HOUR));
    expect(valueOf([kt('const val W = 7 / 2')], 'W').value).to.deep.equal({ kind: 'number', value: 3, type: 'int' });
  });

  it('evaluates the time APIs: TimeUnit, java.time.Duration, kotlin.time', () => {
    const cases: Array<[string, Value]> = [
      ['TimeUnit.HOURS.toMillis(48)', ms(48 * HOUR)],
      ['java.util.concurrent.TimeUnit.DAYS.toMillis(2)', ms(48 * HOUR)],
      ['TimeUnit.MILLISECONDS.toHours(172800000L)', ms(48)],
      ['Duration.ofHours(48).toMillis()', ms(48 * HOUR)],
      ['Duration.of(2, ChronoUnit.DAYS).toMillis()', ms(48 * HOUR)],
      ['Duration.ofDays(1).plusHours(24)', { kind: 'duration', ms: 48 * HOUR }],
      ['48.hours.inWholeMilliseconds', ms(48 * HOUR)],
      ['2.days.toJavaDuration()', { kind: 'duration', ms: 48 * HOUR }],
      ['48.toDuration(DurationUnit.HOURS)', { kind: 'duration', ms: 48 * HOUR }],
      ['2 * 24.hours', { kind: 'duration', ms: 48 * HOUR }],
      ['(24 + 24).toLong() * 3_600_000', ms(48 * HOUR)],
      ['TimeUnit.HOURS', { kind: 'unit', ms: HOUR, name: 'HOURS' }],
    ];
    for (const [expr, expected] of cases) {
      expect(valueOf([kt(`val W = ${expr}`)], 'W').value, expr).to.deep.equal(expected);
    }
  });

  it('resolves names across files, companions, objects and Java static finals', () => {
    const sources = [
      kt('package a\nclass Scheduler {\n  companion object {\n    const val HOURS = 24L\n  }\n}', 'Scheduler.kt'),
      kt('package a\nobject Config {\n  val INTERVAL = Scheduler.HOURS * 2\n}', 'Config.kt'),
      kt('package a\nconst val TOP = 3L', 'Top.kt'),
      { path: 'Limits.java', text: 'package a;\npublic final class Limits {\n  public static final long MAX = Config.INTERVAL + TOP;\n}' },
      kt('package a\nval W = TimeUnit.HOURS.toMillis(Limits.MAX)', 'Window.kt'),
    ];
    const r = valueOf(sources, 'W');
    expect(r.value).to.deep.equal(ms(51 * HOUR));
    expect(r.refs).to.deep.equal(['Window.kt:W', 'Limits.java:MAX', 'Config.kt:INTERVAL', 'Scheduler.kt:HOURS', 'Top.kt:TOP']);
  });

  it('prefers the nearest scope: a local over a member over a top-level declaration', () => {
    const src = kt([
      'val X = 1L',
      'class Worker {',
      '  val X = 2L',
      '  fun run() {',
      '    val X = 3L',
      '    val local = X',
      '  }',
      '  val member = X',
      '}',
      'val top = X',
    ].join('\n'));
    expect(valueOf([src], 'local').value).to.deep.equal(ms(3));
    expect(valueOf([src], 'member').value).to.deep.equal(ms(2));
    expect(valueOf([src], 'top').value).to.deep.equal(ms(1));
  });

  it('answers unknown, with the reason, instead of guessing', () => {
    expect(valueOf([kt('val W = remoteConfig.getLong("window")')], 'W')).to.deep.include({ value: undefined });
    expect(valueOf([kt('val W = MISSING * 2')], 'W').unresolved).to.deep.equal(['`MISSING` is not declared in the scanned sources']);
    expect(valueOf([kt('val A = B\nval W = A\nval B = W')], 'W').value).to.equal(undefined);
    expect(valueOf([kt('object X { val V = 1L }\nobject Y { val V = 2L }\nval W = V')], 'W').value).to.equal(undefined);
    expect(valueOf([kt('fun f(hours: Long) { val W = hours * 2 }')], 'W').unresolved).to.deep.equal([
      '`hours` is a parameter of f(): its value is known only at run time',
    ]);
  });

  it('evaluates strings, concatenation and trimIndent (migration SQL)', () => {
    const src = kt('const val T = "unmatched"\nval W = """\n    ALTER TABLE x\n      ADD c\n""".trimIndent() + " -- " + T + 1');
    expect(valueOf([src], 'W').value).to.deep.equal({ kind: 'string', value: 'ALTER TABLE x\n  ADD c -- unmatched1' });
    expect(valueOf([kt('val W = "a${b}"')], 'W').value).to.equal(undefined);
  });

  it('formats durations for messages', () => {
    expect([formatDuration(48 * HOUR), formatDuration(90 * 60_000), formatDuration(1500), formatDuration(0)]).to.deep.equal(['48 h', '90 min', '1500 ms', '0 ms']);
  });
});
