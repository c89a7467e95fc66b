/**
 * The analysis job's thread (src/offload/thread-pool.ts): a body's portability findings,
 * computed where a file that costs minutes or gigabytes costs only this thread.
 */
import { portabilityOf } from '../robots/profiles/portability.js';
import type { PortabilityResult } from '../robots/profiles/portability.js';
import { threadTasks } from '../offload/thread-tasks.js';

export default threadTasks({
  portability: (body: Uint8Array): PortabilityResult => portabilityOf(body),
});
