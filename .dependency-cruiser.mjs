/**
 * The dependency check of `npm run lint` (docs/architecture.md, "Modules"): no import circles, and
 * dependencies that point one way, from the entry points down to the pure engine. Type-only
 * imports count: a type is part of a module's contract as much as a value is.
 */

/**
 * The layers, top to bottom. A module may import its own layer and those below it, never one
 * above: what is lower knows nothing of who uses it, so it can be read, tested and changed alone.
 */
const LAYERS = [
  // The outermost entry point: its commands start the dashboard, the demo and the workers, so
  // every other layer is below it and nothing restricts its own imports.
  { name: 'cli', paths: ['src/cli/'] },
  {
    name: 'entry-points',
    paths: ['workers/', 'src/web/', 'src/demo/', 'src/index\\.ts$'],
    why: 'a process or a package entry wires the layers below; nothing below may depend on how it is run',
  },
  {
    name: 'use-cases',
    paths: ['src/services/', 'src/reports/'],
    why: 'the write side and the read side are what the entry points call; the stores and the engine never call back into them',
  },
  {
    name: 'stores-and-channels',
    paths: ['src/db/', 'src/queues/', 'src/mail/'],
    why: 'Postgres, Redis and SMTP keep and carry what the use cases decide; they must not know the use cases',
  },
  {
    name: 'night-contract',
    paths: ['src/night/'],
    why: "the night's contract is what the write side computes and the store writes, so both import it and it imports neither",
  },
  {
    name: 'adapters-and-crawlers',
    paths: ['src/http/', 'src/health/', 'src/metrics/', 'src/offload/', 'src/crawlers/', 'src/compliance/'],
    why: 'fetching, probes, metrics, threads, what crawlers make of a file and whether a logged request obeyed it are tools the layers above use; they decide nothing about a night',
  },
  {
    name: 'core',
    paths: ['src/robots/', 'src/policy/', 'src/logs/', 'src/config/', 'src/log/', 'src/package-root\\.ts$'],
    why: 'the engine, the policy rules, the access-log readers, configuration and logging are the ground everything stands on',
  },
];

const pathsOf = (layers) => `^(${layers.flatMap((layer) => layer.paths).join('|')})`;

const layerRules = LAYERS.slice(1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.paths.join(', ')} import nothing from the layers above: ${layer.why}.`,
  severity: 'error',
  from: { path: pathsOf([layer]) },
  to: { path: pathsOf(LAYERS.slice(0, i + 1)) },
}));

/** Node's modules and the packages that do I/O (files, sockets, databases, threads): what "pure" excludes. */
const IO_MODULES = '^(fs|fs/promises|net|tls|dns|dns/promises|http|https|http2|child_process|worker_threads|readline)$|^node_modules/(pg|pg-cursor|ioredis|bullmq|undici|nodemailer|piscina)/';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle makes its modules one: none can be read or tested alone, and ES modules evaluate a circle in an order that can leave a binding undefined.',
      severity: 'error',
      from: { path: '^(src|workers)/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'robots-is-the-engine-alone',
      comment: "src/robots is Google's parser and matcher, pure: what a crawler makes of its answer (Google's library leaves it to the crawler) is src/crawlers', built on it, never under it.",
      severity: 'error',
      from: { path: '^src/robots/' },
      to: { path: '^(src|workers)/', pathNot: '^src/robots/' },
    },
    {
      name: 'policy-is-the-rules-alone',
      comment: 'src/policy is pure decisions on values given to it (the clock included), so it imports nothing of ours but itself.',
      severity: 'error',
      from: { path: '^src/policy/' },
      to: { path: '^(src|workers)/', pathNot: '^src/policy/' },
    },
    {
      name: 'logs-is-the-readers-alone',
      comment: 'src/logs reads an access-log line into a LogRequest and nothing more, pure: the files, gzip and stdin are src/services/logs\', and what a request means for a crawler is the import\'s, so a reader can be tested on a string alone.',
      severity: 'error',
      from: { path: '^src/logs/' },
      to: { path: '^(src|workers)/', pathNot: '^src/logs/' },
    },
    {
      name: 'pure-modules-do-no-io',
      comment: 'src/robots, src/policy, src/crawlers, src/logs and src/compliance are pure (docs/architecture.md): no files, sockets, databases or threads.',
      severity: 'error',
      from: { path: '^src/(robots|policy|crawlers|logs|compliance)/' },
      to: { path: IO_MODULES },
    },
    {
      name: 'write-side-not-on-read-side',
      comment: 'The write side (services) and the read side (reports) meet only in the database: services never import reports.',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/reports/' },
    },
    {
      name: 'read-side-not-on-write-side',
      comment: "The read side (reports) and the write side (services) meet only in the database: reports never import services; what both name is the night's contract (src/night).",
      severity: 'error',
      from: { path: '^src/reports/' },
      to: { path: '^src/services/' },
    },
    {
      name: 'dashboard-reads-through-reports',
      comment: 'The dashboard reads the database through src/reports only, on read-only sessions; it never opens the stores itself.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/(db|queues)/' },
    },
    {
      name: 'prom-client-in-metrics-only',
      comment: 'Every Prometheus metric is in src/metrics, the only module that imports prom-client; the services record through the PipelineRecorder it gives them.',
      severity: 'error',
      from: { pathNot: '^src/metrics/' },
      to: { path: '^node_modules/prom-client/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    // Resolve packages' "exports" subpaths (csv-stringify/sync) as Node does, so nothing is left unresolved.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
