/**
 * Reads a Dockerfile into stages and instructions, for tests that check what the image does
 * without a Docker engine. Enough of the format for this project's Dockerfile: comments and
 * parser directives, line continuations, `FROM image [AS name]`, exec-form (JSON) arguments and
 * RUN flags such as `--mount=...`.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface DockerInstruction {
  /** Upper case: RUN, COPY, USER, ... */
  keyword: string;
  /** Everything after the keyword, continuations joined with a space. */
  args: string;
}

export interface DockerStage {
  base: string;
  name: string | null;
  instructions: DockerInstruction[];
}

export function parseDockerfile(text: string): DockerStage[] {
  const stages: DockerStage[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const [keyword = '', ...rest] = full.split(/\s+/);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') {
      const words = rest.filter((w) => !w.startsWith('--'));
      const as = words.findIndex((w) => w.toUpperCase() === 'AS');
      stages.push({ base: words[0] ?? '', name: as === -1 ? null : (words[as + 1] ?? null), instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${instruction.keyword} before the first FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** The arguments of an exec-form instruction (`["node", "x.js"]`), or null in shell form. */
export function execForm(args: string): string[] | null {
  if (!args.startsWith('[')) return null;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

/** A RUN's shell command without its leading flags (`--mount=type=cache,...`). */
export function runCommand(args: string): string {
  return args.replace(/^(?:--\S+\s+)*/, '');
}

/** The instructions of `stage` with this keyword. */
export function instructions(stage: DockerStage, keyword: string): DockerInstruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/**
 * The variables a stage's ENV instructions set, later ones winning: `ENV KEY=value [KEY=value...]`
 * (values without spaces or quotes, as this project's Dockerfile writes them).
 */
/**
 * The environment every container of this project's image starts with: the ENV of the
 * Dockerfile's last (runtime) stage, e.g. its NODE_OPTIONS, for tests that run a process as the
 * image does.
 */
export function runtimeImageEnvironment(): Record<string, string> {
  const text = fs.readFileSync(fileURLToPath(new URL('../../Dockerfile', import.meta.url)), 'utf8');
  return environment(parseDockerfile(text).at(-1)!);
}

export function environment(stage: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of instructions(stage, 'ENV')) {
    for (const pair of args.split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq <= 0 || /["']/.test(pair)) throw new Error(`ENV ${args}: only KEY=value pairs without quotes are read here`);
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}
