/**
 * The scenarios on one device under WebdriverIO's mocha framework, as this repository's
 * wdio.conf.ts runs them: the suite of `dedup-verify/wdio` (src/wdio/scenario-suite.ts), loaded
 * from the sources. One worker per device; each scenario is one test.
 */
import '../../src/wdio/scenario-suite.js';
