// Preloaded (`node --import`) into each command the hostile benchmark runs: at exit, the process's
// CPU time so far (user + system, every thread: V8's collector, worker threads) is written to the
// file BENCH_CPU_FILE names, in milliseconds. Node has no rusage of a child, and this counts the
// process only, whatever shell or wrapper starts it.
import fs from 'node:fs';
import process from 'node:process';

const file = process.env.BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    fs.writeFileSync(file, String((user + system) / 1000));
  });
}
