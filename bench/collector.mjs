// The collector benchmark (issue 30): the collector's own CPU per poll of a 48-port switch (system group, ifTable,
// ifXTable, ARP, forwarding and LLDP tables, and the HOST-RESOURCES objects it asks for) served by snmpsim, against a
// floor of net-snmp's command-line tools fetching the same tables from the same agent (whole tables; the collector walks
// only the columns it reads): one `snmpget` of the four system scalars and one `snmpbulkwalk -Cr50` (the collector's
// max-repetitions) per table, whose CPU is taken from
// bash's `times` (its children's user + system time). Prints a table; see docs/benchmarks.md#collector.
//   node bench/collector.mjs [--ports 48] [--devices 4] [--cycles 10] [--warmup 3] [--rounds 3]
// Needs dist/ (npm run build) and Debian's snmpsim and snmp packages.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds, machineFacts } from './lib/procfs.mjs';
import { startSnmpsim } from './lib/snmpsim.mjs';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const { values } = parseArgs({
  options: { ports: { type: 'string', default: '48' }, devices: { type: 'string', default: '4' }, cycles: { type: 'string', default: '10' }, warmup: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' } },
});
const [PORTS, DEVICES, CYCLES, WARMUP, ROUNDS] = [values.ports, values.devices, values.cycles, values.warmup, values.rounds].map(Number);
const COMMUNITY = 'switch';

/** What the collector reads of this agent (src/collector/collector.mibs.ts): the system scalars, then each table it walks. */
const SYSTEM = ['1.3.6.1.2.1.1.1.0', '1.3.6.1.2.1.1.2.0', '1.3.6.1.2.1.1.3.0', '1.3.6.1.2.1.1.5.0'];
const TABLES = [
  '1.3.6.1.2.1.2.2.1', // IF-MIB ifTable
  '1.3.6.1.2.1.31.1.1.1', // IF-MIB ifXTable
  '1.3.6.1.2.1.4.35.1', // IP-MIB ipNetToPhysicalTable (this agent has it, so not ipNetToMediaTable)
  '1.3.6.1.2.1.17.1.4.1', // BRIDGE-MIB dot1dBasePortTable
  '1.3.6.1.2.1.17.7.1.2.2.1', // Q-BRIDGE-MIB dot1qTpFdbTable
  '1.3.6.1.2.1.17.7.1.4.2.1', // Q-BRIDGE-MIB dot1qVlanCurrentTable
  '1.0.8802.1.1.2.1.3.7.1', // LLDP-MIB lldpLocPortTable
  '1.0.8802.1.1.2.1.4.1.1', // LLDP-MIB lldpRemTable
  '1.3.6.1.2.1.25.3.3.1.2', // HOST-RESOURCES-MIB hrProcessorLoad (none here)
  '1.3.6.1.2.1.25.2.3.1', // HOST-RESOURCES-MIB hrStorageTable (none here)
];

/** The collector's CPU ms over CYCLES cycles of DEVICES polls, in a process of its own. */
function runCollector(agent) {
  const args = JSON.stringify({ host: agent.host, port: agent.port, community: COMMUNITY, devices: DEVICES, warmup: WARMUP, cycles: CYCLES });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(BENCH, 'lib/collector-poller.mjs'), args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`collector-poller exited ${code}: ${out}`))));
  });
}

/** The floor's CPU ms over CYCLES x DEVICES polls: the net-snmp processes' user + system time, from bash's `times`. */
function runFloor(agent, commands) {
  const target = `${agent.host}:${agent.port}`;
  const poll = commands(target).join('\n');
  const script = `for i in $(seq ${CYCLES * DEVICES}); do\n${poll}\ndone\ntimes`;
  const started = performance.now();
  const out = execFileSync('bash', ['-c', script], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const wallMs = performance.now() - started;
  // the second line of `times`: the children's user and system time, as 0m0.123s 0m0.045s
  const [user, system] = out.trim().split('\n').at(-1).split(' ').map((t) => {
    const [, m, s] = /^(\d+)m([\d.]+)s$/.exec(t);
    return (Number(m) * 60 + Number(s)) * 1000;
  });
  return { cpuMs: user + system, wallMs, polls: CYCLES * DEVICES };
}

const quiet = '-Oqn -t 10 -r 1 -v2c -c ' + COMMUNITY;
const floorCommands = (target) => [
  `snmpget ${quiet} ${target} ${SYSTEM.join(' ')} >/dev/null || exit 1`,
  ...TABLES.map((oid) => `snmpbulkwalk ${quiet} -Cr50 ${target} ${oid} >/dev/null || exit 1`),
];
// what starting those processes costs without the tables: as many one-object requests
const startCommands = (target) => [SYSTEM, ...TABLES].map(() => `snmpget ${quiet} ${target} ${SYSTEM[2]} >/dev/null || exit 1`);

const recording = execFileSync(process.execPath, [path.join(BENCH, 'switch-snmprec.mjs'), '--ports', String(PORTS), '--name', `bench-switch-${PORTS}`], { encoding: 'utf8' });
const objects = recording.trim().split('\n').length;
const agent = await startSnmpsim([{ community: COMMUNITY, text: recording }]);
const facts = machineFacts();
console.log(`Collector poll: a ${PORTS}-port switch (${objects} objects) served by snmpsim, ${DEVICES} devices x ${CYCLES} cycles a round (${WARMUP} warm-up cycles), ${ROUNDS} rounds; ${facts.cpuModel}, load ${facts.loadAverage}`);
const rounds = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    const agentBefore = cpuSeconds([agent.pid]);
    const collector = await runCollector(agent);
    const agentMs = ((cpuSeconds([agent.pid]).get(agent.pid) ?? 0) - (agentBefore.get(agent.pid) ?? 0)) * 1000;
    if (collector.errorCount > 0) throw new Error(`the collector failed ${collector.errorCount} polls: ${collector.errors.join('; ')}`);
    const floor = runFloor(agent, floorCommands);
    const starts = runFloor(agent, startCommands);
    rounds.push({ collector, floor, starts, agentMsPerPoll: agentMs / (collector.polls + WARMUP * DEVICES) });
    const perPoll = (x) => x.cpuMs / x.polls;
    console.log(`round ${r + 1}: collector ${perPoll(collector).toFixed(2)} ms/poll, floor ${perPoll(floor).toFixed(2)} (process starts ${perPoll(starts).toFixed(2)}), snmpsim ${rounds.at(-1).agentMsPerPoll.toFixed(1)}`);
  }
} finally {
  await agent.stop();
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const collectorMs = median(rounds.map((r) => r.collector.cpuMs / r.collector.polls));
const floorMs = median(rounds.map((r) => r.floor.cpuMs / r.floor.polls));
const startsMs = median(rounds.map((r) => r.starts.cpuMs / r.starts.polls));
const ratio = median(rounds.map((r) => r.collector.cpuMs / r.collector.polls / (r.floor.cpuMs / r.floor.polls)));
const wallMs = median(rounds.map((r) => r.collector.wallMs / CYCLES));
const agentMs = median(rounds.map((r) => r.agentMsPerPoll));
console.log('\n| CPU ms per poll (median of rounds) | collector | floor (snmpget + snmpbulkwalk) | collector / floor | floor less its process starts | snmpsim (the agent) | collector wall ms per cycle | devices/min on one core | devices/min within half a core |');
console.log('|---|---|---|---|---|---|---|---|---|');
console.log(`| ${PORTS}-port switch | ${collectorMs.toFixed(2)} | ${floorMs.toFixed(2)} | ${ratio.toFixed(2)}x | ${(floorMs - startsMs).toFixed(2)} | ${agentMs.toFixed(1)} | ${wallMs.toFixed(0)} | ${Math.floor(60_000 / collectorMs)} | ${Math.floor(30_000 / collectorMs)} |`);
