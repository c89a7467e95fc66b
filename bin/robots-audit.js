#!/usr/bin/env node
// The command-line entry point. The sources are TypeScript run through tsx's loader, so a
// clone works without a build step (README: "Why tsx at run time").
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
