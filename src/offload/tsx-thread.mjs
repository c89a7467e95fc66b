// A thread of src/offload/thread-pool.ts when the program runs from its TypeScript sources (tsx,
// vitest): a worker thread does not take the process's `--import tsx` (Node 20 ignores --import in
// a worker's execArgv), so tsx's loader is registered here before the task module is imported.
// From dist/ the compiled task module is the thread's entry and this file is not used.
// No top-level await: piscina loads its entry with require(), and Node 20 aborts the whole
// process (not only the thread) on a require() of a module graph that awaits at its top level.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
// Loaded as the thread starts (a warm thread has it ready); a failure is the first task's answer.
const loading = import(workerData.taskModule).then((module) => module.default);
loading.catch(() => {});

export default async function run(message) {
  return (await loading)(message);
}
