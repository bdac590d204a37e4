import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canBuildNetworks, claimSubnet, ip, linksOf, removeNetwork, startAgent } from './netns.js';
import type { LinkInfo, TestAgent } from './netns.js';

// Two devices that see each other over LLDP: each a namespace with a
// management veth to the test's own namespace (on a 198.18.N.0/24 of its
// own), joined by a veth `link0`, running snmpd as AgentX master and lldpd
// exporting LLDP-MIB to it through that namespace's own AgentX socket.

/** True when this process can build the network: canBuildNetworks() and lldpd with lldpcli. */
export function canBuildLldpNetwork(): boolean {
  return canBuildNetworks() && fs.existsSync('/usr/sbin/lldpd') && fs.existsSync('/usr/sbin/lldpcli') && fs.existsSync('/usr/bin/snmpbulkwalk');
}

/** One device of the network. */
export interface LldpDevice {
  readonly namespace: string;
  readonly address: string;
  /** The LLDP system name lldpd advertises. */
  readonly hostname: string;
  /** The interfaces of the namespace, as `ip -j link` shows them. */
  readonly links: readonly LinkInfo[];
  /** The MAC address lldpd advertises as its chassis id. */
  readonly chassisMac: string;
}

/** The two devices, and how to take them down. */
export interface LldpNetwork {
  readonly devices: readonly [LldpDevice, LldpDevice];
  destroy(): Promise<void>;
}

/** What a device's chassis id is taken from: the interface with the lowest ifIndex but the loopback (whose MAC the collector reports as the device's), or another one. */
export type ChassisSource = 'first-interface' | 'other-interface';

/**
 * Builds the two devices with the given LLDP host names and chassis id
 * sources, starts their agents, and resolves once each agent's LLDP-MIB
 * lists the other as its neighbour on link0.
 */
export async function buildLldpNetwork(specs: readonly [{ hostname: string; chassis: ChassisSource }, { hostname: string; chassis: ChassisSource }]): Promise<LldpNetwork> {
  const tag = `${process.pid % 100000}`;
  const names = [`ngla${tag}`, `nglb${tag}`] as const;
  const mgmtHere = [`ngla${tag}m`, `nglb${tag}m`];
  const subnets: { n: number; release: () => void }[] = [];
  const processes: { agent?: TestAgent; lldpd?: ChildProcess; dir: string }[] = [];
  const destroy = async () => {
    for (const p of processes) {
      if (p.lldpd && p.lldpd.exitCode === null && p.lldpd.signalCode === null) {
        const exited = new Promise((resolve) => p.lldpd?.once('exit', resolve));
        p.lldpd.kill('SIGTERM');
        await exited;
      }
      await p.agent?.stop();
      fs.rmSync(p.dir, { recursive: true, force: true });
    }
    names.forEach((namespace, i) => removeNetwork([namespace], mgmtHere[i] as string));
    for (const subnet of subnets) subnet.release();
  };
  try {
    names.forEach((namespace, i) => removeNetwork([namespace], mgmtHere[i] as string));
    for (const [i, namespace] of names.entries()) {
      const { n } = subnets[subnets.push(claimSubnet()) - 1] as { n: number };
      ip('netns', 'add', namespace);
      ip('link', 'add', mgmtHere[i] as string, 'type', 'veth', 'peer', 'name', 'mgmt0', 'netns', namespace);
      ip('addr', 'add', `198.18.${n}.1/24`, 'dev', mgmtHere[i] as string);
      ip('link', 'set', mgmtHere[i] as string, 'up');
      ip('-n', namespace, 'addr', 'add', `198.18.${n}.2/24`, 'dev', 'mgmt0');
      for (const link of ['mgmt0', 'lo']) ip('-n', namespace, 'link', 'set', link, 'up');
    }
    ip('link', 'add', 'link0', 'netns', names[0], 'type', 'veth', 'peer', 'name', 'link0', 'netns', names[1]);
    for (const namespace of names) ip('-n', namespace, 'link', 'set', 'link0', 'up');
    const devices = await Promise.all(
      names.map(async (namespace, i) => {
        const spec = specs[i] as { hostname: string; chassis: ChassisSource };
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-lldp-'));
        // lldpd's unprivileged half reaches its control socket here
        fs.chmodSync(dir, 0o755);
        const entry: { agent?: TestAgent; lldpd?: ChildProcess; dir: string } = { dir };
        processes.push(entry);
        const address = `198.18.${subnets[i]?.n}.2`;
        const socket = path.join(dir, 'agentx');
        entry.agent = await startAgent(namespace, address, ['master agentx', `agentXSocket unix:${socket}`]);
        const links = linksOf(namespace);
        const ports = links.filter((l) => l.ifname !== 'lo').sort((a, b) => a.ifindex - b.ifindex);
        const chassis = (spec.chassis === 'first-interface' ? ports[0] : ports[ports.length - 1]) as LinkInfo;
        const config = path.join(dir, 'lldpd.conf');
        fs.writeFileSync(config, `configure lldp tx-interval 1\nconfigure system hostname ${spec.hostname}\n`);
        entry.lldpd = spawn(
          'ip',
          ['netns', 'exec', namespace, '/usr/sbin/lldpd', '-d', '-x', '-X', socket, '-u', path.join(dir, 'lldpd.socket'), '-I', 'link0,mgmt0', '-C', chassis.ifname, '-O', config],
          { stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'lldpd.log'), 'w')] },
        );
        return { namespace, address, hostname: spec.hostname, links, chassisMac: chassis.address };
      }),
    );
    for (const [i, device] of devices.entries()) await waitForNeighbour(device.address, path.join((processes[i] as { dir: string }).dir, 'lldpd.log'));
    return { devices: devices as unknown as [LldpDevice, LldpDevice], destroy };
  } catch (error) {
    await destroy();
    throw error;
  }
}

/** Waits until the agent at `address` lists an LLDP neighbour with a system name in lldpRemTable (lldpRemSysName). */
async function waitForNeighbour(address: string, log: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const out = execFileSync('/usr/bin/snmpbulkwalk', ['-v2c', '-c', 'public', '-Oqn', address, '1.0.8802.1.1.2.1.4.1.1.9'], { encoding: 'utf8' });
    if (out.includes('1.0.8802.1.1.2.1.4.1.1.9.')) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the agent at ${address} never listed an LLDP neighbour; lldpd said:\n${fs.readFileSync(log, 'utf8').slice(-2000)}`);
}
