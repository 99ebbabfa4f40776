// Runs the CLI from the sources (no build), exactly as bin/dedup-verify.js runs it from dist/.
import { main } from '../../src/cli/main.js';

process.exit(await main(process.argv));
