/**
 * The documentation stays true to the CLI and to itself: README.md and every page under docs/.
 * - every flag of every command (read from the commander program itself) is documented, and
 *   docs/cli.md has a section per command naming each of its flags;
 * - every `dedup-verify …` command line in a ```sh block names a real command and only flags
 *   that command has (and real scenario and bug names);
 * - every relative link resolves to an existing file, and its #anchor to a heading there;
 * - troubleshooting explains every error code.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/main.js';
import { ErrorCode } from '../../../src/errors.js';
import { SCENARIO_NAMES } from '../../../src/scenarios/index.js';
import { BUG_NAMES } from '../../../src/virtual-device/apps/feed-notifier/bugs.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** README.md and every Markdown file under docs/, as paths relative to the project root. */
function markdownFiles(): string[] {
  const found: string[] = ['README.md'];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found;
}

const FILES = markdownFiles();
const TEXT = new Map(FILES.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const textOf = (file: string): string => TEXT.get(file) ?? readFileSync(join(ROOT, file), 'utf8');

const program = buildProgram({ stdout: () => undefined, stderr: () => undefined }, () => undefined);
const commands = new Map<string, Command>(program.commands.map((c) => [c.name(), c]));
const longFlags = (c: Command): string[] => c.options.map((o) => o.long ?? o.flags);
const shortFlags = (c: Command): string[] => c.options.flatMap((o) => (o.short ? [o.short] : []));

interface Block {
  readonly lang: string;
  readonly startLine: number;
  readonly lines: readonly string[];
}

/** The fenced code blocks of a Markdown text, and its lines with code blocks blanked out. */
function splitMarkdown(text: string): { blocks: Block[]; prose: string[] } {
  const blocks: Block[] = [];
  const prose: string[] = [];
  let open: { lang: string; startLine: number; lines: string[]; fence: string } | undefined;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (open === undefined) {
      if (fence) {
        open = { lang: (fence[2] ?? '').toLowerCase(), startLine: i + 1, lines: [], fence: fence[1] ?? '```' };
        prose.push('');
      } else {
        prose.push(line);
      }
      return;
    }
    if (fence && (fence[1] ?? '').startsWith(open.fence) && line.trim() === fence[1]) {
      blocks.push({ lang: open.lang, startLine: open.startLine, lines: open.lines });
      open = undefined;
    } else {
      open.lines.push(line);
    }
    prose.push('');
  });
  return { blocks, prose };
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of splitMarkdown(text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const rendered = (heading[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = rendered.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  return anchors;
}

interface Link {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

/** Relative links `[text](target)` in prose (outside code blocks and code spans). */
function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  splitMarkdown(textOf(file)).prose.forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '``');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line: i + 1, target });
    }
  });
  return links;
}

interface CommandLine {
  readonly where: string;
  readonly words: readonly string[];
}

/**
 * Every `dedup-verify …` (or `npx dedup-verify …`) invocation in the ```sh blocks: continuation
 * lines joined, comments dropped, each command of a `&&`, `;` or `|` list taken on its own, its
 * words up to the first redirection.
 */
function documentedCommandLines(): CommandLine[] {
  const found: CommandLine[] = [];
  for (const file of FILES) {
    for (const block of splitMarkdown(textOf(file)).blocks) {
      if (!['sh', 'bash', 'shell'].includes(block.lang)) continue;
      const joined: { line: number; text: string }[] = [];
      block.lines.forEach((line, i) => {
        const last = joined[joined.length - 1];
        if (last?.text.endsWith('\\')) last.text = `${last.text.slice(0, -1)} ${line}`;
        else joined.push({ line: block.startLine + 1 + i, text: line });
      });
      for (const { line, text } of joined) {
        const code = text.replace(/(^|\s)#.*$/, '').replace(/\d?>&\d/g, ' ');
        for (const segment of code.split(/&&|\|\||[;|&]/)) {
          const m = /(?:^|[\s($])dedup-verify(?=\s|$)(.*)$/.exec(segment);
          if (!m) continue;
          const words: string[] = [];
          for (const word of (m[1] ?? '').trim().split(/\s+/)) {
            if (word === '' || /^\d?[<>]/.test(word)) break;
            words.push(word);
          }
          found.push({ where: `${file}:${line}: dedup-verify ${words.join(' ')}`, words });
        }
      }
    }
  }
  return found;
}

describe('README.md and docs/: the documentation agrees with the CLI and with itself', () => {
  it('finds README.md and the pages under docs/', () => {
    expect(FILES).to.include.members(['README.md', 'docs/cli.md', 'docs/troubleshooting.md', 'docs/design.md']);
  });

  it('documents every flag of every command somewhere in README.md or docs/', () => {
    const all = [...TEXT.values()].join('\n');
    const everyFlag = program.commands.flatMap(longFlags);
    expect(everyFlag.length, 'flags read from the program').to.be.greaterThan(20);
    for (const [name, command] of commands) {
      for (const flag of longFlags(command)) {
        expect(all, `dedup-verify ${name} ${flag}`).to.match(new RegExp(`${flag}(?![a-z0-9-])`));
      }
    }
  });

  it('docs/cli.md has a section per command that names every one of its flags', () => {
    const cli = textOf('docs/cli.md');
    for (const [name, command] of commands) {
      const start = cli.indexOf(`## \`dedup-verify ${name}\``);
      expect(start, `a "## \`dedup-verify ${name}\`" section in docs/cli.md`).to.be.greaterThan(-1);
      const rest = cli.slice(start + 3);
      const end = rest.search(/\n## /);
      const section = end < 0 ? rest : rest.slice(0, end);
      for (const flag of longFlags(command)) expect(section, `docs/cli.md, ${name}: ${flag}`).to.include(`\`${flag}`);
    }
  });

  it('docs/cli.md names every command in its synopsis and the exit codes 0, 1 and 2', () => {
    const cli = textOf('docs/cli.md');
    for (const name of commands.keys()) expect(cli).to.match(new RegExp(`^dedup-verify ${name}\\b`, 'm'));
    expect(cli).to.match(/\| 0 \| every property verified/);
    expect(cli).to.match(/\| 1 \| a property was violated/);
    expect(cli).to.match(/\| 2 \| could not decide/);
  });

  it('every dedup-verify command line in a ```sh block names a real command and only its flags', () => {
    const lines = documentedCommandLines();
    expect(lines.length, 'command lines found in ```sh blocks').to.be.greaterThan(10);
    const programFlags = [...longFlags(program), ...shortFlags(program), '--help', '-h'];
    const problems: string[] = [];
    for (const { where, words } of lines) {
      const [first = '', ...args] = words;
      if (first.startsWith('-')) {
        if (!programFlags.includes(first.split('=')[0] ?? first)) problems.push(`${where}: ${first} is not an option of dedup-verify`);
        continue;
      }
      const command = commands.get(first);
      if (!command) {
        problems.push(`${where}: "${first}" is not a command (commands: ${[...commands.keys()].join(', ')})`);
        continue;
      }
      const allowed = [...longFlags(command), ...shortFlags(command), '--help', '-h'];
      args.forEach((word, i) => {
        if (!word.startsWith('-')) return;
        const flag = word.split('=')[0] ?? word;
        if (!allowed.includes(flag)) problems.push(`${where}: ${flag} is not an option of dedup-verify ${first}`);
        const value = word.includes('=') ? word.slice(word.indexOf('=') + 1) : args[i + 1];
        if (value === undefined || /^[A-Z$<]/.test(value)) return;
        if (flag === '--scenario' && !SCENARIO_NAMES.includes(value)) problems.push(`${where}: no scenario "${value}"`);
        if (flag === '--bug' && !BUG_NAMES.includes(value)) problems.push(`${where}: no bug switch "${value}"`);
      });
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('every relative link in README.md and docs/ resolves to an existing file and heading', () => {
    const links = FILES.flatMap(relativeLinks);
    expect(links.length, 'relative links found').to.be.greaterThan(20);
    const broken: string[] = [];
    for (const { file, line, target } of links) {
      const [path = '', anchor] = target.split('#', 2);
      const resolved = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
      const shown = `${file}:${line}: ${target}`;
      if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
        broken.push(`${shown} (no file ${relative(ROOT, resolved)})`);
        continue;
      }
      if (anchor !== undefined && anchor !== '' && resolved.endsWith('.md')) {
        const anchors = anchorsOf(readFileSync(resolved, 'utf8'));
        if (!anchors.has(decodeURIComponent(anchor))) broken.push(`${shown} (no heading #${anchor} in ${relative(ROOT, resolved)})`);
      }
    }
    expect(broken, broken.join('\n')).to.deep.equal([]);
  });

  it('docs/troubleshooting.md explains every error code', () => {
    const text = textOf('docs/troubleshooting.md');
    for (const code of Object.values(ErrorCode)) expect(text, code).to.match(new RegExp(`^\\| \`${code}\` \\| `, 'm'));
  });
});
