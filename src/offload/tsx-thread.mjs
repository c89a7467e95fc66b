// A thread of src/offload/thread-pool.ts when the program runs from its TypeScript sources (tsx,
// vitest): a worker thread does not take the process's `--import tsx` (Node 20 ignores --import in
// a worker's execArgv), so tsx's loader is registered here before the task module is imported.
// From dist/ the compiled task module is the thread's entry and this file is not used.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const tasks = (await import(workerData.taskModule)).default;

export default function run(message) {
  return tasks(message);
}
