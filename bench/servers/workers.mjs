// The process model of the bench's own servers: `count` node:cluster workers
// sharing the port, as netgraph's --workers, or the server in this process.
import cluster from 'node:cluster';

/**
 * In the primary with count > 1, forks `count` workers and forwards
 * SIGTERM and SIGINT to them (each stops itself); otherwise runs `start()`.
 */
export function runWorkers(count, start) {
  if (count > 1 && cluster.isPrimary) {
    for (let i = 0; i < count; i++) cluster.fork();
    const stop = () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    return;
  }
  start();
}
