// One measured run of the collector, in a process of its own so that its CPU is the collector's alone (bench/collector.mjs
// starts it): polls the same agent as `devices` configured devices, `warmup` cycles unmeasured, then `cycles` measured,
// each cycle every device once (at most `devices` at a time, as the collector's `concurrency`), and prints one JSON line:
// the process's CPU (user + system, process.cpuUsage) and wall time over the measured cycles, polls done and the errors.
//   node bench/lib/collector-poller.mjs '{"host":"127.0.0.1","port":1161,"community":"switch","devices":4,"warmup":3,"cycles":10}'
import { parseCollectorConfig } from '../../dist/collector/collector.config.js';
import { createCollector } from '../../dist/collector/collector.service.js';

const { host, port, community, devices, warmup, cycles } = JSON.parse(process.argv[2] ?? '{}');
const config = parseCollectorConfig(
  JSON.stringify({
    server: 'http://127.0.0.1:1',
    apiKey: 'unused',
    concurrency: devices,
    // snmpsim answers slowly while the machine is busy; a timeout would measure retries, not polls
    timeoutMs: 10_000,
    devices: Array.from({ length: devices }, (_, i) => ({ host, port, serialNumber: `BENCH-${i + 1}`, uplinks: ['Te1/1/1', 'Te1/1/2'], snmp: { version: '2c', community } })),
  }),
  'the benchmark',
);
const silent = { info() {}, warn() {}, error() {} };
const collector = createCollector(config, silent);
const errors = [];
const cycle = async () => {
  for (const outcome of await collector.pollAll()) if (outcome.error !== null) errors.push(outcome.error);
};
for (let i = 0; i < warmup; i++) await cycle();
const cpu = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < cycles; i++) await cycle();
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, userMs: used.user / 1000, systemMs: used.system / 1000, wallMs: performance.now() - started, polls: cycles * devices, errors: errors.slice(0, 5), errorCount: errors.length })}\n`);
