import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Small networks of Linux network namespaces for tests that cross a network
// (SNMP agents, a collector). Each test file makes its own, named with its
// process id, and deletes them; every address is in 198.18.0.0/15, the range
// RFC 2544 sets aside for tests, and lives only inside those namespaces.

/** True when this process can build namespaces and run snmpd: root with iproute2 and net-snmp's agent installed. */
export function canBuildNetworks(): boolean {
  return process.getuid?.() === 0 && fs.existsSync('/usr/sbin/snmpd') && fs.existsSync('/usr/bin/snmpget') && whichIp() !== undefined;
}

function whichIp(): string | undefined {
  return ['/usr/sbin/ip', '/usr/bin/ip', '/sbin/ip'].find((p) => fs.existsSync(p));
}

/** Runs `ip` with arguments; throws with its stderr. */
export function ip(...args: string[]): string {
  return execFileSync(whichIp() ?? 'ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a command inside a namespace and returns its stdout. */
export function inNamespace(namespace: string, command: string, ...args: string[]): string {
  return ip('netns', 'exec', namespace, command, ...args);
}

/** An interface as `ip -j -s link` shows it. */
export interface LinkInfo {
  readonly ifindex: number;
  readonly ifname: string;
  readonly address: string;
  readonly operstate: string;
  readonly stats64: { readonly rx: { readonly bytes: number; readonly packets: number }; readonly tx: { readonly bytes: number; readonly packets: number } };
}

/** The interfaces of a namespace with their counters. */
export function linksOf(namespace: string): LinkInfo[] {
  return JSON.parse(ip('-n', namespace, '-j', '-s', 'link', 'show')) as LinkInfo[];
}

const SUBNET_LOCKS = path.join(os.tmpdir(), 'netgraph-test-subnets');

/**
 * A /24 of 198.18.0.0/16 (198.18.N.0) that no other test network on this
 * machine uses: its management veth's address in this namespace must be
 * unique, or two networks' routes collide and one collector polls nothing.
 * Claimed with an atomic mkdir holding the owner's pid, so concurrent test
 * processes (and CI runs) never share one; a claim of a process that is
 * gone is taken over. Returns N and how to give the subnet back.
 */
export function claimSubnet(): { n: number; release: () => void } {
  fs.mkdirSync(SUBNET_LOCKS, { recursive: true });
  const used = new Set((ip('-4', '-j', 'addr', 'show').match(/"198\.18\.(\d+)\.\d+"/g) ?? []).map((m) => Number(/\.18\.(\d+)\./.exec(m)?.[1])));
  for (let k = 0; k < 256; k += 1) {
    const n = (process.pid + k) % 256;
    if (used.has(n)) continue;
    const lock = path.join(SUBNET_LOCKS, String(n));
    try {
      fs.mkdirSync(lock);
    } catch {
      const owner = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }));
      // an empty pid file: another process has just made the lock and not yet written its pid
      if (!(owner > 0) || isAlive(owner)) continue;
    }
    fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
    return { n, release: () => fs.rmSync(lock, { recursive: true, force: true }) };
  }
  throw new Error('no free 198.18.N.0/24 for a test network');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Deletes a test network's namespaces and the veth end it left in this one, whichever of them exist. */
export function removeNetwork(namespaces: readonly string[], localLink: string): void {
  for (const namespace of namespaces) {
    try {
      ip('netns', 'del', namespace);
    } catch {
      // already gone
    }
  }
  try {
    ip('link', 'del', localLink);
  } catch {
    // deleted with its peer's namespace
  }
}

/**
 * A device namespace reached from the test's own namespace over a veth pair
 * (`mgmt`: 198.18.N.1 here, 198.18.N.2 there), with a LAN veth to a client
 * namespace (198.19.N.1 on the device, 198.19.N.2 on the client).
 */
export interface TestNetwork {
  readonly device: string;
  readonly client: string;
  readonly deviceAddress: string;
  readonly lanInterface: string;
  readonly clientAddress: string;
  readonly clientMac: string;
  /** Sends UDP datagrams from the client to the device until 20,000 bytes more arrived on its LAN interface, so it learns the client's MAC and counters move. */
  sendClientTraffic(): Promise<void>;
  destroy(): void;
}

/** Builds the device and client namespaces, on a subnet of their own. */
export function buildTestNetwork(): TestNetwork {
  const subnet = claimSubnet();
  const { n } = subnet;
  const tag = `${process.pid % 100000}`;
  const device = `ngd${tag}`;
  const client = `ngc${tag}`;
  const mgmtHere = `ngm${tag}a`;
  const mgmtThere = `ngm${tag}b`;
  const lanInterface = `ngl${tag}a`;
  const lanClient = `ngl${tag}b`;
  const deviceAddress = `198.18.${n}.2`;
  const clientAddress = `198.19.${n}.2`;
  const destroy = () => {
    removeNetwork([device, client], mgmtHere);
    subnet.release();
  };
  removeNetwork([device, client], mgmtHere);
  ip('netns', 'add', device);
  ip('netns', 'add', client);
  ip('link', 'add', mgmtHere, 'type', 'veth', 'peer', 'name', mgmtThere);
  ip('link', 'set', mgmtThere, 'netns', device);
  ip('addr', 'add', `198.18.${n}.1/24`, 'dev', mgmtHere);
  ip('link', 'set', mgmtHere, 'up');
  ip('-n', device, 'addr', 'add', `${deviceAddress}/24`, 'dev', mgmtThere);
  ip('-n', device, 'link', 'set', mgmtThere, 'up');
  ip('-n', device, 'link', 'set', 'lo', 'up');
  ip('link', 'add', lanInterface, 'netns', device, 'type', 'veth', 'peer', 'name', lanClient, 'netns', client);
  ip('-n', device, 'addr', 'add', `198.19.${n}.1/24`, 'dev', lanInterface);
  ip('-n', device, 'link', 'set', lanInterface, 'up');
  ip('-n', client, 'addr', 'add', `${clientAddress}/24`, 'dev', lanClient);
  ip('-n', client, 'link', 'set', lanClient, 'up');
  const clientMac = (JSON.parse(ip('-n', client, '-j', 'link', 'show', lanClient)) as LinkInfo[])[0]?.address ?? '';
  return {
    device,
    client,
    deviceAddress,
    lanInterface,
    clientAddress,
    clientMac,
    async sendClientTraffic() {
      const received = () => linksOf(device).find((l) => l.ifname === lanInterface)?.stats64.rx.bytes ?? 0;
      const start = received();
      const script = `const s=require('dgram').createSocket('udp4');let i=0;const go=()=>s.send(Buffer.alloc(1000),9,'198.19.${n}.1',()=>{if(++i<20)go();else s.close()});go();`;
      // a link just set up may drop the first datagrams (no carrier yet, or the address still being resolved)
      for (let attempt = 0; received() - start < 20_000; attempt += 1) {
        if (attempt === 50) throw new Error(`the client's datagrams do not reach ${device}`);
        inNamespace(client, process.execPath, '-e', script);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    destroy,
  };
}

/** A running snmpd in a namespace. */
export interface TestAgent {
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** SNMPv3 user of the test agents: SHA-256 authentication, AES privacy. */
export const TEST_V3_USER = { user: 'ngtest', authKey: 'auth-secret-1', privKey: 'priv-secret-1' } as const;

/**
 * Starts net-snmp's agent inside `namespace` on `address`:161, with community
 * `public` (or `options.communities`: none makes it an SNMPv3-only agent) and
 * the v3 user (and `extraConfig`, lines of snmpd.conf) and `sysName`; resolves once it answers.
 */
export async function startAgent(
  namespace: string,
  address: string,
  extraConfig: readonly string[] = [],
  sysName = 'netgraph-test-switch',
  options: { communities?: readonly string[] } = {},
): Promise<TestAgent> {
  const communities = options.communities ?? ['public'];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-snmpd-'));
  const conf = path.join(dir, 'snmpd.conf');
  fs.writeFileSync(
    conf,
    [
      ...communities.map((community) => `rocommunity ${community} default`),
      `sysName ${sysName}`,
      `createUser ${TEST_V3_USER.user} SHA-256 ${TEST_V3_USER.authKey} AES ${TEST_V3_USER.privKey}`,
      `rouser ${TEST_V3_USER.user} priv`,
      ...extraConfig,
      '',
    ].join('\n'),
  );
  const child = spawn(whichIp() ?? 'ip', ['netns', 'exec', namespace, '/usr/sbin/snmpd', '-f', '-Lf', path.join(dir, 'snmpd.log'), '-C', '-c', conf, `--persistentDir=${dir}`, '-p', path.join(dir, 'pid'), `udp:${address}:161`], {
    stdio: 'ignore',
    env: { ...process.env, MIBS: '' },
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i += 1) {
    try {
      const { user, authKey, privKey } = TEST_V3_USER;
      const credentials = communities[0] === undefined ? ['-v3', '-l', 'authPriv', '-u', user, '-a', 'SHA-256', '-A', authKey, '-x', 'AES', '-X', privKey] : ['-v2c', '-c', communities[0]];
      execFileSync('/usr/bin/snmpget', [...credentials, '-t', '0.2', '-r', '0', address, '1.3.6.1.2.1.1.5.0'], { stdio: 'ignore' });
      return { process: child, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await stop();
  throw new Error(`snmpd in ${namespace} did not answer on ${address}:161`);
}

/**
 * Waits until the agent at `address` answers at least `bytes` for an
 * interface's ifHCInOctets (read with net-snmp's own snmpget): snmpd caches
 * interface counters for about 5 seconds, so a poll right after traffic may
 * read the values of before.
 */
export async function waitForAgentCounter(address: string, ifIndex: number, bytes: number): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const out = execFileSync('/usr/bin/snmpget', ['-v2c', '-c', 'public', '-Oqv', address, `1.3.6.1.2.1.31.1.1.1.6.${ifIndex}`], { encoding: 'utf8' });
    if (Number(out.trim()) >= bytes) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the agent at ${address} never counted ${bytes} bytes in on ifIndex ${ifIndex}`);
}

/** A bridge's forwarding entry as `bridge -j fdb show` prints it. */
export interface FdbEntry {
  readonly mac: string;
  readonly ifname: string;
  readonly vlan?: number;
  readonly master?: string;
  readonly state?: string;
}

/**
 * A switch namespace: a Linux bridge `br0` with two ports, each a veth to a
 * client namespace (198.19.N.2 and .3), and a management veth like
 * buildTestNetwork's (198.18.N.1 here, 198.18.N.2 there).
 */
export interface BridgeNetwork {
  readonly device: string;
  readonly deviceAddress: string;
  /** The bridge's port interfaces, in the order the clients hang off them. */
  readonly ports: readonly string[];
  readonly clientMacs: readonly string[];
  /** Each client's IPv4 address, in the subnet of the bridge's own address (on br0, its VLAN interface). */
  readonly clientAddresses: readonly string[];
  /**
   * Each client sends a broadcast datagram and one to the bridge's own address
   * until the bridge has learned every client's MAC and has each in its ARP
   * table on br0.
   */
  learnClients(): Promise<void>;
  /** The bridge's forwarding table, from the kernel. */
  fdb(): FdbEntry[];
  destroy(): void;
}

/** Builds the switch and its two clients; `n` (0 to 255) keeps the addresses of concurrent files apart. */
export function buildBridgeNetwork(): BridgeNetwork {
  const subnet = claimSubnet();
  const { n } = subnet;
  const tag = `${process.pid % 100000}`;
  const device = `ngbd${tag}`;
  const clients = [`ngb1${tag}`, `ngb2${tag}`];
  const mgmtHere = `ngbm${tag}a`;
  const ports = [`ngbp${tag}a`, `ngbp${tag}b`];
  const deviceAddress = `198.18.${n}.2`;
  const destroy = () => {
    removeNetwork([device, ...clients], mgmtHere);
    subnet.release();
  };
  removeNetwork([device, ...clients], mgmtHere);
  for (const namespace of [device, ...clients]) ip('netns', 'add', namespace);
  ip('link', 'add', mgmtHere, 'type', 'veth', 'peer', 'name', 'mgmt0', 'netns', device);
  ip('addr', 'add', `198.18.${n}.1/24`, 'dev', mgmtHere);
  ip('link', 'set', mgmtHere, 'up');
  ip('-n', device, 'addr', 'add', `${deviceAddress}/24`, 'dev', 'mgmt0');
  for (const link of ['mgmt0', 'lo']) ip('-n', device, 'link', 'set', link, 'up');
  ip('-n', device, 'link', 'add', 'br0', 'type', 'bridge');
  // enslaved in reverse, so bridge port numbers and ifIndexes run in opposite orders
  clients.forEach((client, i) => ip('link', 'add', ports[i]!, 'netns', device, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', client));
  for (const port of [...ports].reverse()) ip('-n', device, 'link', 'set', port, 'master', 'br0');
  for (const link of [...ports, 'br0']) ip('-n', device, 'link', 'set', link, 'up');
  // the bridge's own address: its clients' IP neighbours sit on br0, as a switch's on its VLAN interface
  ip('-n', device, 'addr', 'add', `198.19.${n}.1/24`, 'dev', 'br0');
  const clientAddresses = clients.map((_, i) => `198.19.${n}.${i + 2}`);
  clients.forEach((client, i) => {
    ip('-n', client, 'addr', 'add', `${clientAddresses[i]}/24`, 'dev', 'eth0');
    ip('-n', client, 'link', 'set', 'eth0', 'up');
  });
  const clientMacs = clients.map((client) => (JSON.parse(ip('-n', client, '-j', 'link', 'show', 'eth0')) as LinkInfo[])[0]?.address ?? '');
  const fdb = () => JSON.parse(inNamespace(device, 'bridge', '-j', 'fdb', 'show', 'br', 'br0')) as FdbEntry[];
  const neighbours = () => JSON.parse(ip('-n', device, '-j', 'neigh', 'show', 'dev', 'br0')) as { lladdr?: string }[];
  // a broadcast for the bridge's forwarding table, then a datagram to the bridge itself, which puts the client in its ARP table
  const script = `const s=require('dgram').createSocket('udp4');s.bind(()=>{s.setBroadcast(true);s.send(Buffer.alloc(64),9,'198.19.${n}.255',()=>s.send(Buffer.alloc(64),9,'198.19.${n}.1',()=>s.close()))});`;
  return {
    device,
    deviceAddress,
    ports,
    clientMacs,
    clientAddresses,
    async learnClients() {
      const learned = () => clientMacs.every((mac) => fdb().some((e) => e.mac === mac && e.master === 'br0') && neighbours().some((e) => e.lladdr === mac));
      for (let attempt = 0; !learned(); attempt += 1) {
        // a link just set up may drop the first frames
        if (attempt === 50) throw new Error(`br0 in ${device} never learned its clients' MAC addresses`);
        for (const client of clients) inNamespace(client, process.execPath, '-e', script);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    fdb,
    destroy,
  };
}

/**
 * Two device namespaces for a discovery sweep, each reached over its own
 * veth pair from this namespace, in one /29 of 198.18.N.0/24: this
 * namespace is 198.18.N.1, the devices .2 and .3 (each its own MACs, so its
 * own serial number); .4 to .6 answer nothing. A third device, `outsider`,
 * at .9 (outside the /29, inside 198.18.N.0/28), for sweeps of wider ranges.
 */
export interface SweepNetwork {
  /** The /29's two devices. */
  readonly devices: readonly string[];
  readonly addresses: readonly string[];
  /** 198.18.N.0/29. */
  readonly range: string;
  /** The device at 198.18.N.9. */
  readonly outsider: { readonly device: string; readonly address: string };
  /** 198.18.N.0/24, the subnet the network was built on, e.g. for a range of another prefix. */
  readonly prefix: string;
  destroy(): void;
}

/** Builds the sweep's device namespaces on a subnet of their own. */
export function buildSweepNetwork(): SweepNetwork {
  const subnet = claimSubnet();
  const { n } = subnet;
  const tag = `${process.pid % 100000}`;
  const all = [`ngsa${tag}`, `ngsb${tag}`, `ngsc${tag}`];
  const here = [`ngsa${tag}h`, `ngsb${tag}h`, `ngsc${tag}h`];
  const everyAddress = [`198.18.${n}.2`, `198.18.${n}.3`, `198.18.${n}.9`];
  const devices = all.slice(0, 2);
  const addresses = everyAddress.slice(0, 2);
  const remove = () => all.forEach((device, i) => removeNetwork([device], here[i] as string));
  const destroy = () => {
    remove();
    subnet.release();
  };
  remove();
  all.forEach((device, i) => {
    const local = here[i] as string;
    ip('netns', 'add', device);
    ip('link', 'add', local, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', device);
    // this end holds .1 once; each device is a host route on its own veth
    if (i === 0) ip('addr', 'add', `198.18.${n}.1/32`, 'dev', local);
    ip('link', 'set', local, 'up');
    ip('route', 'add', `${everyAddress[i]}/32`, 'dev', local, 'src', `198.18.${n}.1`);
    ip('-n', device, 'addr', 'add', `${everyAddress[i]}/32`, 'dev', 'eth0');
    for (const link of ['eth0', 'lo']) ip('-n', device, 'link', 'set', link, 'up');
    ip('-n', device, 'route', 'add', `198.18.${n}.1/32`, 'dev', 'eth0');
    ip('-n', device, 'route', 'add', 'default', 'via', `198.18.${n}.1`, 'dev', 'eth0');
  });
  return { devices, addresses, range: `198.18.${n}.0/29`, outsider: { device: all[2] as string, address: everyAddress[2] as string }, prefix: `198.18.${n}`, destroy };
}
