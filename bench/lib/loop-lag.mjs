// Preloaded into a measured process (`node --import ./bench/lib/loop-lag.mjs …`): every second it appends one JSON
// line to $BENCH_LOOP_LAG_FILE with the event loop's delay over that second (max and p99, ms) and the process's RSS,
// so a benchmark reads how long the loop was blocked without touching the process's own code.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_LAG_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const flush = () => {
    const line = { at: Date.now(), maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, rssBytes: process.memoryUsage.rss() };
    histogram.reset();
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  setInterval(flush, 1000).unref();
  process.once('exit', flush);
}
