#!/usr/bin/env node
// The `ai-zen` command: its commands are in ai-zen/ (program.ts puts them together).
import { runAiZen } from './ai-zen/program.js';

process.exit(await runAiZen(process.argv.slice(2)));
