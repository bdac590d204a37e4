// snmpsim (Debian's package snmpsim, `snmpsimd`) serving .snmprec recordings on 127.0.0.1, for the collector's
// benchmark (bench/collector.mjs) and its recorded-walk tests (test/collector-recordings.test.ts).
import { execFile, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where Debian installs the simulator. */
export const SNMPSIMD = '/usr/bin/snmpsimd';

/** A free UDP port on 127.0.0.1. */
async function freeUdpPort() {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise((resolve) => socket.close(resolve));
  return port;
}

/** Resolves true when the agent answers sysUpTime.0 for `community` (net-snmp's snmpget, one try of 1 s). */
function answers(port, community) {
  return new Promise((resolve) => {
    execFile('snmpget', ['-v2c', '-c', community, '-t', '1', '-r', '0', `127.0.0.1:${port}`, '1.3.6.1.2.1.1.3.0'], (error) => resolve(error === null));
  });
}

/**
 * Starts snmpsimd on a free UDP port of 127.0.0.1 serving each recording (its
 * .snmprec text) under its community, and waits until every one answers
 * (snmpsim indexes a recording before it serves it: a few seconds for 50,000
 * lines). Run as root it drops to nobody:nogroup, as it insists; the files are
 * written to a temp folder that user can read. `stop()` ends it and deletes
 * the folder.
 * @param {{ community: string, text: string }[]} recordings
 * @returns {Promise<{ host: string, port: number, pid: number, stop(): Promise<void> }>}
 */
export async function startSnmpsim(recordings) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-snmpsim-'));
  const data = path.join(dir, 'data');
  const cache = path.join(dir, 'cache');
  fs.mkdirSync(data);
  fs.mkdirSync(cache);
  for (const { community, text } of recordings) fs.writeFileSync(path.join(data, `${community}.snmprec`), text, { mode: 0o644 });
  const root = process.getuid?.() === 0;
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(data, 0o755);
  // snmpsim writes its index into the cache folder as the user it runs as
  fs.chmodSync(cache, 0o777);
  const port = await freeUdpPort();
  const args = [`--data-dir=${data}`, `--cache-dir=${cache}`, `--agent-udpv4-endpoint=127.0.0.1:${port}`, '--logging-method=null', ...(root ? ['--process-user=nobody', '--process-group=nogroup'] : [])];
  const child = spawn(SNMPSIMD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (const { community } of recordings) {
    while (!(await answers(port, community))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`snmpsimd did not serve ${community} on 127.0.0.1:${port}:\n${output.slice(-3000)}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return { host: '127.0.0.1', port, pid: child.pid, stop };
}
