#!/usr/bin/env node
// Entry point of the published package: checks that the build is there and the Node version
// before loading anything else. No top-level await and no static import of the build: a Node
// too old for either still gets the message, and a checkout that was never built gets one line
// naming the fix instead of a module-not-found stack.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/src/cli/', import.meta.url);

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

if (!existsSync(fileURLToPath(new URL('node-version.js', cli))) || !existsSync(fileURLToPath(new URL('main.js', cli)))) {
  fail(
    `dedup-verify is not built: ${fileURLToPath(cli)} has no main.js. In a checkout of its sources run \`npm run build\`; an installed copy is incomplete: reinstall it (npm install dedup-verify).`,
  );
}

const unstartable = (e) => {
  fail(`dedup-verify could not start: ${e instanceof Error ? e.message : String(e)}. Reinstall it (npm install dedup-verify), or in a checkout run \`npm run build\`.`);
};

import(new URL('node-version.js', cli).href).then(({ checkNodeVersion }) => {
  const problem = checkNodeVersion(process.versions.node);
  if (problem !== null) fail(problem);
  return import(new URL('main.js', cli).href).then(
    ({ main }) => main(process.argv).then((code) => process.exit(code)),
    unstartable,
  );
}, unstartable);
