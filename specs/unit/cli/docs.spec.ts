/**
 * The README sections for a newcomer stay true to the CLI: the CLI reference has a section per
 * command listing every flag, every `dedup-verify COMMAND --flag` written in the docs exists,
 * and the troubleshooting section explains every error code.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/main.js';
import { ErrorCode } from '../../../src/errors.js';

const DOCS = ['preparing-your-app', 'emulator-images', 'repro-by-hand', 'cli', 'troubleshooting'] as const;

function readDoc(name: string): string {
  return readFileSync(new URL(`../../../docs/readme/${name}.md`, import.meta.url), 'utf8');
}

const program = buildProgram({ stdout: () => undefined, stderr: () => undefined }, () => undefined);
const commands = new Map<string, Command>(program.commands.map((c) => [c.name(), c]));
const flagsOf = (c: Command): string[] => c.options.map((o) => o.long ?? o.flags);

describe('docs/readme: the newcomer sections agree with the CLI', () => {
  const cli = readDoc('cli');

  it('the CLI reference has a section per command that names every flag', () => {
    for (const [name, command] of commands) {
      const start = cli.indexOf(`### \`dedup-verify ${name}\``);
      expect(start, `section for ${name}`).to.be.greaterThan(-1);
      const rest = cli.slice(start + 4);
      const section = rest.slice(0, rest.indexOf('\n### ') < 0 ? undefined : rest.indexOf('\n### '));
      for (const flag of flagsOf(command)) expect(section, `${name} ${flag}`).to.include(`\`${flag}`);
    }
  });

  it('the synopsis names every command and the exit codes 0, 1 and 2', () => {
    for (const name of commands.keys()) expect(cli).to.match(new RegExp(`^dedup-verify ${name}\\b`, 'm'));
    expect(cli).to.match(/\| 0 \| every property verified/);
    expect(cli).to.match(/\| 1 \| a property was violated/);
    expect(cli).to.match(/\| 2 \| could not decide/);
  });

  for (const doc of DOCS) {
    it(`${doc}.md uses only commands and flags that exist`, () => {
      const text = readDoc(doc);
      let checked = 0;
      for (const m of text.matchAll(/dedup-verify ([a-z][a-z-]*)([^\n`|#;&)]*)/g)) {
        const command = commands.get(m[1] ?? '');
        if (command === undefined) continue;
        for (const flag of (m[2] ?? '').match(/--[a-z0-9-]+/g) ?? []) {
          if (flag === '--help') continue;
          expect(flagsOf(command), `${doc}.md: dedup-verify ${m[1] ?? ''} ${flag}`).to.include(flag);
          checked += 1;
        }
      }
      if (doc !== 'emulator-images') expect(checked, `${doc}.md shows commands with flags`).to.be.greaterThan(0);
    });
  }

  it('troubleshooting explains every error code', () => {
    const text = readDoc('troubleshooting');
    for (const code of Object.values(ErrorCode)) expect(text, code).to.match(new RegExp(`^\\| \`${code}\` \\| `, 'm'));
  });
});
