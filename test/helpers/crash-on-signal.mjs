// Loaded into a `netgraph serve` child by the crash test (NODE_OPTIONS=--import):
// after SIGUSR2, the next response ends the process with an exception nothing
// catches, thrown in the same turn of the event loop as that request's log
// line, so the line is still pending when the crash comes.
import http from 'node:http';

process.on('SIGUSR2', () => {
  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function endThenCrash(...args) {
    const result = end.apply(this, args);
    queueMicrotask(() => {
      throw new Error('crash on purpose (test/helpers/crash-on-signal.mjs)');
    });
    return result;
  };
});
