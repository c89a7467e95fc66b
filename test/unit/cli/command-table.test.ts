/**
 * The CLI loads a command's module only when that command runs (src/cli/command-table.ts). What
 * that must not change: `--help` lists every command exactly as the modules define it, the
 * invoked command gets its real definition, and an unknown command is still commander's error.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES } from '../../../src/cli/command-table.js';
import type { CommandModule } from '../../../src/cli/command-table.js';
import type { CliIo } from '../../../src/cli/io.js';
import { buildProgram, invokedCommandName } from '../../../src/cli/main.js';
import { createProgram } from '../../../src/cli/program.js';
import { runCli } from '../../helpers/cli.js';

function silentIo(): CliIo {
  return { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
}

/** The program as it was before lazy loading: every module imported and registered. */
async function eagerProgram(io: CliIo) {
  const program = createProgram(io);
  for (const module of COMMAND_MODULES) (await module.load())(program, io);
  return program;
}

const ALL_NAMES = COMMAND_MODULES.flatMap((m) => m.commands.map((c) => c.name));

describe('the command table matches the command modules', () => {
  it('lists, in order, exactly the top-level commands the modules register', async () => {
    const eager = await eagerProgram(silentIo());
    expect(eager.commands.map((c) => c.name())).toEqual(ALL_NAMES);
  });

  it('--help with no module loaded is the help of the eager program, byte for byte', async () => {
    const io = silentIo();
    const lazy = await buildProgram(io, ['--help']);
    expect(lazy.helpInformation()).toBe((await eagerProgram(io)).helpInformation());
  });

  it.each(ALL_NAMES)('with %s loaded, the program help is still the same', async (name) => {
    const io = silentIo();
    const lazy = await buildProgram(io, [name]);
    expect(lazy.helpInformation()).toBe((await eagerProgram(io)).helpInformation());
  });

  it.each(ALL_NAMES)('%s --help is the help of the real command', async (name) => {
    const io = silentIo();
    const lazy = (await buildProgram(io, [name])).commands.find((c) => c.name() === name)!;
    const eager = (await eagerProgram(io)).commands.find((c) => c.name() === name)!;
    expect(lazy.helpInformation()).toBe(eager.helpInformation());
  });
});

describe('only the invoked command module is loaded', () => {
  /** The real table, with every load counted. */
  function countingModules(): { modules: CommandModule[]; loaded: string[] } {
    const loaded: string[] = [];
    const modules = COMMAND_MODULES.map((m) => ({
      commands: m.commands,
      load: () => {
        loaded.push(m.commands[0]!.name);
        return m.load();
      },
    }));
    return { modules, loaded };
  }

  it.each([
    [['check', '--robots', '-', '--ua', 'Googlebot', 'https://example.com/'], ['check']],
    [['lint', '-'], ['lint']],
    [['eval'], ['eval']],
    [['help', 'lint'], ['lint']],
    [['scheduler', '--help'], ['worker']],
    [['tracked'], ['track']],
    [['history', 'example.com'], ['history']],
    [['diff', '--help'], ['diff']],
    [['explain', 'example.com', '/', '--ua', 'GPTBot'], ['explain']],
    [['--help'], []],
    [['--version'], []],
    [[], []],
    [['no-such-command'], []],
  ])('%j loads %j', async (argv, expected) => {
    const { modules, loaded } = countingModules();
    await buildProgram(silentIo(), argv, modules);
    expect(loaded).toEqual(expected);
  });

  it('finds the command after the program options and after help', () => {
    expect(invokedCommandName(['-h', 'check'])).toBe('check');
    expect(invokedCommandName(['help', 'db', 'migrate'])).toBe('db');
    expect(invokedCommandName(['help'])).toBeUndefined();
    expect(invokedCommandName([])).toBeUndefined();
  });
});

describe('through main', () => {
  it('an unknown command is commander\'s error, with the nearest command suggested', async () => {
    const run = await runCli(['chek']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: unknown command 'chek'");
    expect(run.stderr).toContain('(Did you mean check?)');
  });

  it('--help lists every command with its description', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').map((line) => line.trim().replace(/\s+/g, ' '));
    for (const { term, description } of COMMAND_MODULES.flatMap((m) => m.commands)) expect(lines).toContain(`${term} ${description}`);
  });

  it('help <command> shows the real command with its options', async () => {
    const run = await runCli(['help', 'check']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: robots-audit check [options] <url...>');
    expect(run.stdout).toContain('--robots <file>');
  });
});
