#!/usr/bin/env node
// Entry point of the published package: checks the Node version before loading anything else.
// No top-level await here: a Node too old for it still gets the message.
import { checkNodeVersion } from '../dist/src/cli/node-version.js';

const problem = checkNodeVersion(process.versions.node);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
import('../dist/src/cli/main.js').then(
  ({ main }) => main(process.argv).then((code) => process.exit(code)),
  (e) => {
    process.stderr.write(`dedup-verify could not start: ${e instanceof Error ? e.message : String(e)}. Reinstall it (npm install dedup-verify).\n`);
    process.exit(2);
  },
);
