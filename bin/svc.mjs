#!/usr/bin/env node
// The published entry: runs the compiled CLI (never TypeScript at run time: start-up matters).
import { main } from '../dist/cli/main.js';

await main(process.argv);
