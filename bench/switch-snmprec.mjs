// A simulated access switch as an snmpsim recording (.snmprec: one `OID|type|value` line per object, in OID order), the
// agent of the collector benchmark (bench/collector.mjs) and, at 6 ports, of test/fixtures/snmp/ (see its README).
//   node bench/switch-snmprec.mjs [--ports 48] [--name bench-switch] [--serial NGB-0000001] > switch.snmprec
// What it holds, deterministically (no randomness: the same arguments give the same file):
// - SNMPv2-MIB system group: sysName --name, sysUpTime one day.
// - IF-MIB ifTable and ifXTable: ports 1..N as ifIndex 10100+k, named Gi1/0/k, the last two Te1/1/1-2 (10 Gbit/s uplinks);
//   port k is administratively down when k % 12 == 4, down when that or k % 4 == 3, else up; 64-bit counters (most
//   above 2^32, the 32-bit ones their low 32 bits); an alias "desk k" when k % 6 == 1; plus the SVI Vlan10 (ifIndex 10).
// - IP-MIB ipNetToPhysicalTable on Vlan10: one client per connected access port (10.10.0.(k+10), MAC 02:c1:00:00:00:kk)
//   and one invalid(2) entry.
// - BRIDGE-MIB dot1dBasePortTable (bridge port k is ifIndex 10100+k) and Q-BRIDGE-MIB dot1qTpFdbTable: each client
//   learned(3) on its port, in VLAN 10 (FDB 10) when k is odd, VLAN 30 when even, whose FDB id is 5
//   (dot1qVlanCurrentTable); the upstream router learned on the last uplink; the switch's own MAC as self(4); one learned
//   entry on a bridge port without an interface.
// - LLDP-MIB lldpLocPortTable (port k, id Gi1/0/k) and lldpRemTable: the uplinks' core switches and an access point on
//   each connected port with k % 8 == 1.
// - ENTITY-MIB entPhysicalTable: the chassis (serial --serial) and a power supply without one.
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { ports: { type: 'string', default: '48' }, name: { type: 'string', default: 'bench-switch' }, serial: { type: 'string', default: 'NGB-0000001' } } });
const PORTS = Number(values.ports);
if (!Number.isInteger(PORTS) || PORTS < 3 || PORTS > 240) throw new Error('--ports: a whole number from 3 to 240');

const SVI = 10;
const SWITCH_MAC = '02:4e:47:00:00:00';
const ROUTER_MAC = '02:4e:47:ff:ff:01';
const rows = [];
const add = (oid, type, value) => rows.push([oid, type, String(value)]);
const hex = (text) => Buffer.from(text).toString('hex');
const macHex = (mac) => mac.replaceAll(':', '');
const macIndex = (mac) => mac.split(':').map((h) => parseInt(h, 16)).join('.');
const byteHex = (n) => n.toString(16).padStart(2, '0');

/** Port k: its ifIndex, names, state and counters. */
function port(k) {
  const uplink = k > PORTS - 2;
  const enabled = k % 12 !== 4;
  const connected = enabled && k % 4 !== 3;
  const inOctets = connected ? BigInt(k) * 1_000_000_007n * BigInt((k % 7) + 1) : 0n;
  const outOctets = connected ? BigInt(k) * 3_000_000_019n : 0n;
  return {
    k,
    ifIndex: 10100 + k,
    uplink,
    descr: uplink ? `TenGigabitEthernet1/1/${k - PORTS + 2}` : `GigabitEthernet1/0/${k}`,
    name: uplink ? `Te1/1/${k - PORTS + 2}` : `Gi1/0/${k}`,
    alias: k % 6 === 1 && !uplink ? `desk ${k}` : '',
    mbps: uplink ? 10_000 : 1_000,
    enabled,
    connected,
    mac: `02:4e:47:00:01:${byteHex(k)}`,
    inOctets,
    outOctets,
    inPackets: inOctets / 700n,
    outPackets: outOctets / 900n,
    inErrors: k % 5 === 0 ? k : 0,
  };
}
const ports = Array.from({ length: PORTS }, (_, i) => port(i + 1));
const clients = ports.filter((p) => p.connected && !p.uplink).map((p) => ({ port: p, ip: `10.10.0.${p.k + 10}`, mac: `02:c1:00:00:00:${byteHex(p.k)}`, vlan: p.k % 2 === 0 ? 30 : 10 }));
const FDB_OF_VLAN = new Map([[1, 1], [10, 10], [30, 5]]);

// SNMPv2-MIB system group
add('1.3.6.1.2.1.1.1.0', '4', `netgraph benchmark switch, ${PORTS} ports (bench/switch-snmprec.mjs)`);
add('1.3.6.1.2.1.1.2.0', '6', '1.3.6.1.4.1.8072.3.2.10');
add('1.3.6.1.2.1.1.3.0', '67', 8_640_000);
add('1.3.6.1.2.1.1.4.0', '4', 'noc@example.net');
add('1.3.6.1.2.1.1.5.0', '4', values.name);
add('1.3.6.1.2.1.1.6.0', '4', 'lab rack 1');
add('1.3.6.1.2.1.1.7.0', '2', 6);
add('1.3.6.1.2.1.2.1.0', '2', PORTS + 1);

// IF-MIB ifTable and ifXTable: the SVI, then the ports
const svi = { ifIndex: SVI, descr: 'Vlan10', name: 'Vl10', alias: 'clients', type: 53, mbps: 1000, enabled: true, connected: true, mac: SWITCH_MAC, inOctets: 5_000_000_000n, outOctets: 6_000_000_000n, inPackets: 7_000_000n, outPackets: 8_000_000n, inErrors: 0 };
const interfaces = [svi, ...ports.map((p) => ({ ...p, type: 6 }))];
const low32 = (n) => n % 2n ** 32n;
const IF_COLUMNS = [
  [1, '2', (i) => i.ifIndex], [2, '4', (i) => i.descr], [3, '2', (i) => i.type], [4, '2', () => 1500],
  [5, '66', (i) => (i.mbps >= 4295 ? 4_294_967_295 : i.mbps * 1_000_000)], [6, '4x', (i) => macHex(i.mac)],
  [7, '2', (i) => (i.enabled ? 1 : 2)], [8, '2', (i) => (i.connected ? 1 : 2)], [9, '67', () => 1234],
  [10, '65', (i) => low32(i.inOctets)], [11, '65', (i) => low32(i.inPackets)], [12, '65', () => 0], [13, '65', () => 0],
  [14, '65', (i) => i.inErrors], [15, '65', () => 0], [16, '65', (i) => low32(i.outOctets)], [17, '65', (i) => low32(i.outPackets)],
  [18, '65', () => 0], [19, '65', () => 0], [20, '65', () => 0], [21, '66', () => 0], [22, '6', () => '0.0'],
];
const IFX_COLUMNS = [
  [1, '4', (i) => i.name], [2, '65', () => 0], [3, '65', () => 0], [4, '65', () => 0], [5, '65', () => 0],
  [6, '70', (i) => i.inOctets], [7, '70', (i) => i.inPackets], [8, '70', () => 0], [9, '70', () => 0],
  [10, '70', (i) => i.outOctets], [11, '70', (i) => i.outPackets], [12, '70', () => 0], [13, '70', () => 0],
  [14, '2', () => 1], [15, '66', (i) => i.mbps], [16, '2', () => 2], [17, '2', (i) => (i.type === 6 ? 1 : 2)],
  [18, '4', (i) => i.alias], [19, '67', () => 0],
];
for (const [column, type, value] of IF_COLUMNS) for (const i of interfaces) add(`1.3.6.1.2.1.2.2.1.${column}.${i.ifIndex}`, type, value(i));
for (const [column, type, value] of IFX_COLUMNS) for (const i of interfaces) add(`1.3.6.1.2.1.31.1.1.1.${column}.${i.ifIndex}`, type, value(i));

// IP-MIB ipNetToPhysicalTable (index ifIndex.ipv4(1).4.address): the clients, and one invalid entry
const neighbours = [...clients.map((c) => ({ ip: c.ip, mac: c.mac, type: 3 })), { ip: '10.10.0.250', mac: '02:c1:00:00:00:fa', type: 2 }];
for (const [column, type, value] of [[4, '4x', (n) => macHex(n.mac)], [5, '67', () => 100], [6, '2', (n) => n.type], [7, '2', () => 1], [8, '2', () => 1]]) {
  for (const n of neighbours) add(`1.3.6.1.2.1.4.35.1.${column}.${SVI}.1.4.${n.ip}`, type, value(n));
}

// BRIDGE-MIB dot1dBasePortTable; Q-BRIDGE-MIB dot1qTpFdbTable (index FDB id.MAC) and dot1qVlanCurrentTable (index 0.VLAN)
for (const [column, type, value] of [[1, '2', (p) => p.k], [2, '2', (p) => p.ifIndex], [3, '6', () => '0.0'], [4, '65', () => 0], [5, '65', () => 0]]) {
  for (const p of ports) add(`1.3.6.1.2.1.17.1.4.1.${column}.${p.k}`, type, value(p));
}
const fdb = [
  ...clients.map((c) => ({ fdbId: FDB_OF_VLAN.get(c.vlan), mac: c.mac, port: c.port.k, status: 3 })),
  { fdbId: 10, mac: ROUTER_MAC, port: PORTS, status: 3 },
  { fdbId: 10, mac: SWITCH_MAC, port: 0, status: 4 },
  { fdbId: 10, mac: '02:4e:47:ff:ff:02', port: PORTS + 1, status: 3 },
];
for (const [column, value] of [[2, (e) => e.port], [3, (e) => e.status]]) for (const e of fdb) add(`1.3.6.1.2.1.17.7.1.2.2.1.${column}.${e.fdbId}.${macIndex(e.mac)}`, '2', value(e));
const allPorts = Buffer.alloc(Math.ceil(PORTS / 8), 0xff).toString('hex');
for (const [column, type, value] of [[2, '4x', () => allPorts], [3, '66', (v) => FDB_OF_VLAN.get(v)], [4, '4x', () => allPorts], [5, '2', () => 2], [6, '67', () => 0]]) {
  for (const vlan of FDB_OF_VLAN.keys()) add(`1.3.6.1.2.1.17.7.1.4.2.1.${column}.0.${vlan}`, type, value(vlan));
}

// LLDP-MIB lldpLocPortTable (index lldpLocPortNum k) and lldpRemTable (index 0.k.1)
for (const [column, type, value] of [[2, '2', () => 5], [3, '4', (p) => p.name], [4, '4', (p) => p.descr]]) for (const p of ports) add(`1.0.8802.1.1.2.1.3.7.1.${column}.${p.k}`, type, value(p));
const remotes = ports.flatMap((p) => {
  if (p.uplink) return [{ k: p.k, chassis: [4, `02:4e:47:ff:00:${byteHex(p.k - PORTS + 2)}`], portId: [5, `Te1/0/${p.k}`], portDesc: `to ${values.name}`, sysName: `core-${p.k - PORTS + 2}` }];
  if (p.connected && p.k % 8 === 1) return [{ k: p.k, chassis: [4, `02:a9:00:00:00:${byteHex(p.k)}`], portId: [3, `02:a9:00:00:00:${byteHex(p.k)}`], portDesc: 'eth0', sysName: `ap-${p.k}` }];
  return [];
});
const lldpId = ([subtype, id]) => (subtype === 4 || subtype === 3 ? macHex(id) : hex(id));
for (const [column, type, value] of [
  [4, '2', (r) => r.chassis[0]], [5, '4x', (r) => lldpId(r.chassis)], [6, '2', (r) => r.portId[0]], [7, '4x', (r) => lldpId(r.portId)],
  [8, '4', (r) => r.portDesc], [9, '4', (r) => r.sysName], [10, '4', () => 'simulated neighbour'], [11, '4x', () => '2800'], [12, '4x', () => '2800'],
]) {
  for (const r of remotes) add(`1.0.8802.1.1.2.1.4.1.1.${column}.0.${r.k}.1`, type, value(r));
}

// ENTITY-MIB entPhysicalTable: the chassis and a power supply
const entities = [{ index: 1, descr: `${PORTS}-port switch`, class: 3, name: 'Switch 1', serial: values.serial }, { index: 2, descr: 'Power supply', class: 6, name: 'PS 1', serial: '' }];
for (const [column, type, value] of [[2, '4', (e) => e.descr], [5, '2', (e) => e.class], [7, '4', (e) => e.name], [11, '4', (e) => e.serial]]) {
  for (const e of entities) add(`1.3.6.1.2.1.47.1.1.1.1.${column}.${e.index}`, type, value(e));
}

const compare = (a, b) => {
  const x = a[0].split('.').map(Number);
  const y = b[0].split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};
process.stdout.write(rows.sort(compare).map((r) => r.join('|')).join('\n') + '\n');
