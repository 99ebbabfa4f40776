/**
 * dedup-verify on device farms through WebdriverIO (docs/farms.md): this
 * repository's config is the package's own `dedup-verify/wdio` export (src/wdio/), with this
 * repository's spec file (specs/device/), which runs the same suite from the sources.
 *
 *   DV_WDIO_UDIDS=emulator-5554,127.0.0.1:5555 DV_CONFIG=dedup-verify.config.json npx wdio run wdio.conf.ts
 *
 * Every environment variable (DV_WDIO_UDIDS, DV_CONFIG, DV_SCENARIOS, DV_WDIO_HOSTNAME, …) is
 * described in src/wdio/index.ts and docs/farms.md.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dedupVerifyConfig } from './src/wdio/index.js';

const root = dirname(fileURLToPath(import.meta.url));

// A local Appium server finds the UiAutomator2 driver in this project's node_modules (both are
// devDependencies): the project is its APPIUM_HOME, wherever wdio is started from.
if ((process.env['DV_WDIO_HOSTNAME'] ?? '') === '') process.env['APPIUM_HOME'] ??= root;

export const config = dedupVerifyConfig({ rootDir: root, specs: ['./specs/device/**/*.spec.ts'] });
