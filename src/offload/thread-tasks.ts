/**
 * What a task module of src/offload/thread-pool.ts exports as its default: one function that
 * runs the named task on its input. Kept apart from thread-pool.ts, so a thread loads nothing of
 * the pool.
 */
export interface TaskMessage {
  task: string;
  input: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each task takes its own input type; the pool's caller names it
type Task = (input: any) => unknown;

/** The module's tasks by name, as the default export the pool's threads call. */
export function threadTasks(tasks: Record<string, Task>): (message: TaskMessage) => unknown {
  return ({ task, input }) => {
    const run = Object.hasOwn(tasks, task) ? tasks[task] : undefined;
    if (!run) throw new Error(`no task "${task}" in this module`);
    return run(input);
  };
}
