/**
 * The contract between main.ts and a command module: a function that adds the module's commands
 * to the program. It has a module of its own, below both, so that a command module depends on
 * the contract and never on main.ts, which loads the command modules.
 */
import type { Command } from 'commander';
import type { CliIo } from './io.js';

export type CommandRegistrar = (program: Command, io: CliIo) => void;
