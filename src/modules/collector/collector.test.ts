import { describe, expect, it } from 'vitest';
import type { DevicePoll, PolledInterface } from './collector.mibs.js';
import { buildReport } from './collector.report.js';

const port = (ifIndex: number, rxBytes: bigint, wide: boolean, extra: Partial<PolledInterface> = {}): PolledInterface => ({
  ifIndex,
  name: `eth${ifIndex}`,
  alias: null,
  type: 6,
  isEnabled: true,
  isConnected: true,
  speedMbps: 1000,
  macAddress: `02:00:00:00:00:0${ifIndex}`,
  counters: { rxBytes, txBytes: 0n, rxPackets: 0n, txPackets: 0n, rxErrors: 0n, txErrors: 0n, wide },
  ...extra,
});
const poll = (uptimeSeconds: number, interfaces: PolledInterface[], neighbours: DevicePoll['neighbours'] = []): DevicePoll => ({
  sysName: 'sw', sysDescr: null, sysObjectID: null, uptimeSeconds, interfaces, neighbours,
});
const device = { serialNumber: 'M1A3-SW00-0001', uplinks: ['eth1'] };
const at = new Date('2026-11-27T10:00:00Z');
const rxOf = (report: Record<string, unknown>, portNumber: number) =>
  ((report.interfaces as { portNumber: number; counters: { rxBytes: number } }[]).find((p) => p.portNumber === portNumber))?.counters.rxBytes;

describe('buildReport', () => {
  it('unwraps 32-bit counters across polls, leaves 64-bit ones as read, and starts again after a reboot', () => {
    const first = buildReport(device, poll(100, [port(1, 4_294_967_000n, false), port(2, 5n, true)]), undefined, at);
    const second = buildReport(device, poll(160, [port(1, 704n, false), port(2, 9n, true)]), first.memory, at);
    expect(rxOf(second.report, 1)).toBe(4_294_967_296 + 704);
    expect(rxOf(second.report, 2)).toBe(9);
    const third = buildReport(device, poll(220, [port(1, 1_000n, false)]), second.memory, at);
    expect(rxOf(third.report, 1)).toBe(4_294_967_296 + 1_000);
    expect(third.report.events).toBeUndefined();

    const rebooted = buildReport(device, poll(30, [port(1, 50n, false)]), third.memory, at);
    expect(rxOf(rebooted.report, 1)).toBe(50);
    expect(rebooted.report.events).toEqual([
      { type: 'DEVICE_BOOT', observedAt: at.toISOString(), details: { source: 'snmp', uptimeSeconds: 30, previousUptimeSeconds: 220 } },
    ]);
  });

  it('reports ports by ifIndex without the loopback, uplinks by name, and wired clients once per MAC, IPv4 first, never the device itself', () => {
    const { report } = buildReport(
      device,
      poll(10, [port(1, 0n, true), port(2, 0n, true, { type: 24, name: 'lo' }), port(70_000, 0n, true)], [
        { ifIndex: 1, ip: 'fe80::1', macAddress: '0a:00:00:00:00:01' },
        { ifIndex: 1, ip: '198.19.0.9', macAddress: '0a:00:00:00:00:01' },
        { ifIndex: 9, ip: '198.19.0.10', macAddress: '0a:00:00:00:00:02' },
        { ifIndex: 1, ip: '198.19.0.1', macAddress: '02:00:00:00:00:01' },
      ]),
      undefined,
      at,
    );
    expect((report.interfaces as { portNumber: number; isUplink: boolean; isUplinkActive?: boolean }[]).map((p) => [p.portNumber, p.isUplink, p.isUplinkActive])).toEqual([[1, true, true]]);
    expect(report.clients).toEqual([
      { macAddress: '0a:00:00:00:00:01', ip: '198.19.0.9', hostname: null, isWireless: false, portNumber: 1 },
      { macAddress: '0a:00:00:00:00:02', ip: '198.19.0.10', hostname: null, isWireless: false, portNumber: null },
    ]);
  });
});
