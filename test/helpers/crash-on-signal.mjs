// Loaded into a `netgraph serve` child by the crash test (NODE_OPTIONS=--import):
// SIGUSR2 makes the process throw an exception nothing catches, as a bug would.
process.on('SIGUSR2', () => {
  setImmediate(() => {
    throw new Error('crash on purpose (test/helpers/crash-on-signal.mjs)');
  });
});
