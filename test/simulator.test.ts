import { describe, expect, it } from 'vitest';
import type { SimulatedReport as Report } from '../src/tools/simulator/simulator.report.js';
import { createFleet } from '../src/tools/simulator/simulator.fleet.js';
import type { FleetNetworkInput } from '../src/tools/simulator/simulator.fleet.js';
import { runSimulator } from '../src/tools/simulator/simulator.runner.js';
import type { ReportSink } from '../src/tools/simulator/simulator.sink.js';
import { checkReport } from './helpers/report-protocol.js';

const NETWORKS: FleetNetworkInput[] = [
  {
    id: '11111111-1111-4111-8111-111111111111',
    vlans: [
      { vlanID: 10, name: 'Corp' },
      { vlanID: 20, name: 'Guest' },
    ],
    ssids: ['Acme-Corp', 'Acme-Guest'],
    devices: [
      { serialNumber: 'M1A3-AP00-0001', deviceType: 'ACCESS_POINT', deviceModel: 'AP-W7' },
      { serialNumber: 'M1A3-AP00-0002', deviceType: 'ACCESS_POINT', deviceModel: 'AP-W6' },
      { serialNumber: 'M1A3-AP00-0003', deviceType: 'ACCESS_POINT' },
      { serialNumber: 'M1A3-SW00-0001', deviceType: 'SWITCH', deviceModel: 'SW-24P' },
      { serialNumber: 'M1A3-NC00-0001', deviceType: 'CONTROLLER', deviceModel: 'NC-200' },
      { serialNumber: 'M1A3-CG00-0001', deviceType: 'CELLULAR_GATEWAY' },
      { serialNumber: 'M1A3-PD00-0001', deviceType: 'POWER_DISTRIBUTION_UNIT' },
    ],
  },
  {
    // a network eight hours behind UTC, with no VLANs or SSIDs
    id: '11111111-1111-4111-8111-111111111112',
    utcOffsetMinutes: -480,
    vlans: [],
    ssids: [],
    devices: [{ serialNumber: 'M1A3-SW00-0002', deviceType: 'SWITCH', deviceModel: 'SW-48P' }],
  },
];

/** Tuesday 2026-11-24 00:00 UTC. */
const DAY_START = Date.parse('2026-11-24T00:00:00Z') / 1000;
const HOUR = 3600;

function reportsOver(seed: number, from: number, hours: number, interval: number): Report[] {
  const fleet = createFleet(NETWORKS, { seed, intervalSeconds: interval });
  const out: Report[] = [];
  for (let t = from; t < from + hours * HOUR; t += interval) out.push(...fleet.reportsAt(t));
  return out;
}

const clientCount = (reports: readonly Report[], serials: readonly string[]) =>
  reports.filter((r) => serials.includes(r.serialNumber)).reduce((n, r) => n + (r.clients?.length ?? 0), 0);

describe('the fleet simulator', () => {
  it('gives byte-identical reports for the same seed, whatever was asked before, and others for another seed', () => {
    const a = JSON.stringify(reportsOver(7, DAY_START, 6, 300));
    const b = JSON.stringify(reportsOver(7, DAY_START, 6, 300));
    expect(b).toBe(a);
    expect(JSON.stringify(reportsOver(8, DAY_START, 6, 300))).not.toBe(a);
    // the state at a time is a function of the seed and the time alone
    const fleet = createFleet(NETWORKS, { seed: 7, intervalSeconds: 300 });
    const late = DAY_START + 5 * HOUR;
    const fresh = JSON.stringify(fleet.reportsAt(late));
    fleet.reportsAt(DAY_START);
    expect(JSON.stringify(createFleet(NETWORKS, { seed: 7, intervalSeconds: 300 }).reportsAt(late))).toBe(fresh);
  });

  it('sends only reports that follow the protocol, each with its own reportId, lowercase MACs, signals from -90 to -30', () => {
    const reports = reportsOver(3, DAY_START, 48, 300);
    expect(reports.length).toBeGreaterThan(4000);
    expect(reports.flatMap((r, i) => checkReport(r, `reports[${i}]`)).slice(0, 5)).toEqual([]);
    expect(new Set(reports.map((r) => r.reportId)).size).toBe(reports.length);
    const signals = reports.flatMap((r) => r.clients ?? []).filter((c) => c.isWireless).map((c) => c.signal as number);
    expect(Math.min(...signals)).toBeGreaterThanOrEqual(-90);
    expect(Math.max(...signals)).toBeLessThanOrEqual(-30);
    expect(new Set(signals).size).toBeGreaterThan(10);
  });

  it('has fewer clients at night than by day, by the network local time', () => {
    const fleet = createFleet(NETWORKS, { seed: 3, intervalSeconds: 300 });
    const aps = ['M1A3-AP00-0001', 'M1A3-AP00-0002', 'M1A3-AP00-0003', 'M1A3-SW00-0001'];
    for (let day = 0; day < 3; day++) {
      const at = (utcHour: number) => clientCount(fleet.reportsAt(DAY_START + day * 24 * HOUR + utcHour * HOUR), aps);
      expect(at(3)).toBeLessThan(at(14));
      expect(at(3)).toBeGreaterThan(0); // printers, cameras and sensors stay
      // 14:00 in UTC-8 is 22:00 UTC; 03:00 there is 11:00 UTC
      const west = (utcHour: number) => clientCount(fleet.reportsAt(DAY_START + day * 24 * HOUR + utcHour * HOUR), ['M1A3-SW00-0002']);
      expect(west(11)).toBeLessThan(west(22));
    }
  });

  it("reports its wireless clients' connection events: a joining client CONNECTED and DHCP_OK, a leaving one DISASSOCIATED", () => {
    const reports = reportsOver(3, DAY_START + 6 * HOUR, 6, 60);
    const types = new Map<string, number>();
    for (const [i, r] of reports.entries()) {
      for (const { macAddress, events } of r.clientConnectionEvents ?? []) {
        for (const e of events) types.set(e.type, (types.get(e.type) ?? 0) + 1);
        const listed = (r.clients ?? []).some((c) => c.macAddress === macAddress);
        // a client that joined is in the access point's set; one that left is not
        if (events.some((e) => e.type === 'CONNECTED')) expect([i, listed, events.at(-1)?.type]).toEqual([i, true, 'DHCP_OK']);
        if (events.some((e) => e.type === 'DISASSOCIATED')) expect([i, listed]).toEqual([i, false]);
      }
    }
    expect(Math.min(...['CONNECTED', 'DHCP_OK', 'DISASSOCIATED', 'DHCP_FAILED', 'ARP_LATE'].map((t) => types.get(t) ?? 0))).toBeGreaterThan(0);
    expect(types.get('CONNECTED')).toBe(types.get('DHCP_OK'));
  });

  it('moves wireless clients between access points, with a signal that changes', () => {
    const reports = reportsOver(3, DAY_START + 8 * HOUR, 10, 60);
    const apsOf = new Map<string, Set<string>>();
    const signalsOf = new Map<string, Set<number | null>>();
    for (const r of reports) {
      for (const c of r.clients ?? []) {
        if (!c.isWireless) continue;
        apsOf.set(c.macAddress, (apsOf.get(c.macAddress) ?? new Set()).add(r.serialNumber));
        signalsOf.set(c.macAddress, (signalsOf.get(c.macAddress) ?? new Set()).add(c.signal));
      }
    }
    expect([...apsOf.values()].filter((aps) => aps.size > 1).length).toBeGreaterThan(3);
    expect([...signalsOf.values()].every((s) => s.size > 1)).toBe(true);
  });

  it("gives wireless clients a band of their access point with its channel, good and poor SNR, rates, a Wi-Fi generation and growing byte counters; wired clients counters", () => {
    const reports = reportsOver(3, DAY_START + 9 * HOUR, 2, 60);
    const bandsOf = new Map(reports.filter((r) => r.radios !== undefined).map((r) => [r.serialNumber, new Set(r.radios?.map((radio) => radio.radioBand))]));
    const channelsOf = new Map<string, Set<number | null>>();
    const wireless = reports.flatMap((r) => (r.clients ?? []).filter((c) => c.isWireless).map((c) => ({ ap: r.serialNumber, c })));
    for (const { ap, c } of wireless) {
      expect(bandsOf.get(ap)?.has(c.radioBand as 'BAND_5G')).toBe(true);
      channelsOf.set(`${ap}/${c.radioBand}`, (channelsOf.get(`${ap}/${c.radioBand}`) ?? new Set()).add(c.channel));
      expect(c.snr).toBe(Math.max(0, Math.min(100, c.snr as number)));
      expect(c.rxRateMbps).toBeGreaterThan(0);
      if (c.radioBand === 'BAND_6G') expect(['WIFI_6', 'WIFI_7']).toContain(c.hwMode);
    }
    // one channel per access point and band, within the band's range
    for (const [key, channels] of channelsOf) {
      expect(channels.size, key).toBe(1);
      const [channel] = [...channels] as number[];
      expect(key.endsWith('BAND_2_4G') ? channel! <= 14 : channel! >= 1).toBe(true);
    }
    const snrs = wireless.map(({ c }) => c.snr as number);
    expect(Math.min(...snrs)).toBeLessThan(20);
    expect(Math.max(...snrs)).toBeGreaterThan(40);
    expect(new Set(wireless.map(({ c }) => c.hwMode)).size).toBeGreaterThan(2);
    // a client's counters grow from one report of its access point to the next, unless it reconnected (fell back)
    const last = new Map<string, number>();
    let grew = 0;
    for (const { ap, c } of wireless) {
      const before = last.get(`${ap}/${c.macAddress}`);
      if (before !== undefined && (c.txBytes as number) > before) grew++;
      last.set(`${ap}/${c.macAddress}`, c.txBytes as number);
    }
    expect(grew).toBeGreaterThan(wireless.length / 2);
    const wired = reports.flatMap((r) => (r.clients ?? []).filter((c) => !c.isWireless));
    expect(wired.length).toBeGreaterThan(0);
    expect(wired.every((c) => c.snr === null && c.radioBand === null && (c.rxBytes as number) >= 0)).toBe(true);
    expect(wired.some((c) => (c.rxBytes as number) > 0)).toBe(true);
  });

  it("reports each switch's MAC table: its wired clients on their ports, and the access points with their clients on the ports they hang off", () => {
    const fleet = createFleet(NETWORKS, { seed: 3, intervalSeconds: 60 });
    let checked = 0;
    for (let t = DAY_START + 9 * HOUR; t < DAY_START + 17 * HOUR; t += 600) {
      const reports = fleet.reportsAt(t);
      const bySerial = new Map(reports.map((r) => [r.serialNumber, r]));
      for (const serial of ['M1A3-SW00-0001', 'M1A3-SW00-0002']) {
        const sw = bySerial.get(serial);
        if (sw === undefined) continue;
        // a rogue access point plugged in now and then (simulator.security.ts): on a free port, VLAN 1, checked apart
        const rogue = (e: { macAddress: string }) => e.macAddress.startsWith('a4:5e:60:');
        for (const e of (sw.macTable ?? []).filter(rogue)) expect(sw.interfaces?.find((p) => p.portNumber === e.portNumber)).toMatchObject({ isUplink: false });
        const table = (sw.macTable ?? []).filter((e) => !rogue(e));
        const wired = (sw.clients ?? []).map((c) => ({ macAddress: c.macAddress, vlanID: c.vlanID, portNumber: c.portNumber }));
        const apPorts = (sw.interfaces ?? []).filter((p) => !p.isUplink && p.isTrunkPort);
        // the wired clients, exactly, on connected access ports of their VLAN
        expect(table.filter((e) => !apPorts.some((p) => p.portNumber === e.portNumber))).toEqual(wired);
        for (const c of wired) expect(sw.interfaces?.find((p) => p.portNumber === c.portNumber)).toMatchObject({ isConnected: true, nativeVLANID: c.vlanID });
        // each access point that reports hangs off one of these ports, with its wireless clients behind it
        const aps = ['M1A3-AP00-0001', 'M1A3-AP00-0002', 'M1A3-AP00-0003'].map((s) => bySerial.get(s)).filter((r) => r !== undefined);
        const behind = serial === 'M1A3-SW00-0001' ? aps : [];
        const expected = behind.flatMap((ap) => {
          const port = table.find((e) => e.macAddress === ap.macAddress)?.portNumber;
          expect(apPorts.map((p) => p.portNumber)).toContain(port);
          return [{ macAddress: ap.macAddress, vlanID: 1, portNumber: port }, ...(ap.clients ?? []).map((c) => ({ macAddress: c.macAddress, vlanID: c.vlanID, portNumber: port }))];
        });
        expect(table.filter((e) => apPorts.some((p) => p.portNumber === e.portNumber))).toEqual(expected);
        checked += table.length;
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('reports LLDP neighbours that see each other: every neighbour is a reporting device whose port sees the reporter back, and CPU/memory within bounds', () => {
    const fleet = createFleet(NETWORKS, { seed: 3, intervalSeconds: 60 });
    let links = 0;
    for (let t = DAY_START + 9 * HOUR; t < DAY_START + 17 * HOUR; t += 1800) {
      const reports = fleet.reportsAt(t);
      const byMac = new Map(reports.map((r) => [r.macAddress, r]));
      for (const r of reports) {
        expect(r.cpuPercent).toBeGreaterThanOrEqual(0);
        expect(r.cpuPercent).toBeLessThanOrEqual(100);
        expect(r.memoryUsedBytes).toBeLessThanOrEqual(r.memoryTotalBytes as number);
        for (const port of r.interfaces ?? []) {
          const n = port.lldpNeighbor;
          if (n === null || n === undefined) continue;
          const other = byMac.get(n.chassisID);
          expect(other, `${r.serialNumber} port ${port.portNumber} sees ${n.chassisID}`).toBeDefined();
          const back = other?.interfaces?.find((p) => p.label === n.portID);
          expect(back?.lldpNeighbor).toEqual({ chassisID: r.macAddress, portID: port.label, portDescription: port.label, systemName: r.serialNumber.toLowerCase() });
          links += 1;
        }
      }
    }
    expect(links).toBeGreaterThan(20);
  });

  it("blocks a switch's redundant link now and then: one connected port, never an uplink, BLOCKING for 3 to 10 minutes, then FORWARDING again", () => {
    const switches: FleetNetworkInput[] = [
      {
        id: '11111111-1111-4111-8111-111111111113',
        vlans: [{ vlanID: 10, name: 'Corp' }],
        ssids: [],
        devices: ['0001', '0002', '0003', '0004'].map((n) => ({ serialNumber: `M1A3-SW00-${n}`, deviceType: 'SWITCH' as const, deviceModel: 'SW-24P' })),
      },
    ];
    const interval = 60;
    const fleet = createFleet(switches, { seed: 7, intervalSeconds: interval });
    /** Per switch, the port blocked in its previous report and since when. */
    const open = new Map<string, { port: number; since: number }>();
    const lengths: number[] = [];
    const wrong: string[] = [];
    for (let t = DAY_START; t < DAY_START + 2 * 24 * HOUR; t += interval) {
      for (const r of fleet.reportsAt(t)) {
        const at = Date.parse(r.observedAt) / 1000;
        const ports = r.interfaces ?? [];
        const blocking = ports.filter((p) => p.stpState === 'BLOCKING');
        if (blocking.length > 1) wrong.push(`${r.serialNumber} ${r.observedAt}: ${blocking.length} ports blocked at once`);
        for (const p of ports) {
          const expected = p.stpState === 'BLOCKING' ? true : p.isConnected === true ? 'FORWARDING' : 'DISABLED';
          if (expected !== true && p.stpState !== expected) wrong.push(`${r.serialNumber} port ${p.portNumber}: ${p.stpState} with isConnected ${p.isConnected}`);
          if (p.stpState === 'BLOCKING' && (p.isUplink === true || p.isConnected !== true)) wrong.push(`${r.serialNumber} port ${p.portNumber}: an uplink or unconnected port blocked`);
        }
        const was = open.get(r.serialNumber);
        const now = blocking[0]?.portNumber;
        if (was !== undefined && was.port !== now) {
          lengths.push(at - was.since);
          open.delete(r.serialNumber);
        }
        if (now !== undefined && !open.has(r.serialNumber)) open.set(r.serialNumber, { port: now, since: at });
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    // 4 switches, 8 six-hour slots each, a block in about one slot in ten
    expect(lengths.length).toBeGreaterThanOrEqual(2);
    // sampled every minute: a block of 180 to 600 s is seen for 3 to 10 whole minutes (an outage of the switch can cut one short)
    for (const length of lengths) expect(length).toBeLessThanOrEqual(600 + interval);
    expect(lengths.filter((length) => length >= 180).length).toBeGreaterThan(0);
  });

  it('keeps counters growing between reboots, and a reboot resets them and the uptime, with DEVICE_BOOT', () => {
    const interval = 300;
    const reports = reportsOver(5, DAY_START, 8 * 24, interval);
    const bySerial = new Map<string, Report[]>();
    for (const r of reports) bySerial.set(r.serialNumber, bySerial.get(r.serialNumber) ?? []).get(r.serialNumber)?.push(r);
    let boots = 0;
    let offlineGaps = 0;
    const wrong: string[] = [];
    for (const series of bySerial.values()) {
      for (let i = 1; i < series.length; i++) {
        const [before, after] = [series[i - 1] as Report, series[i] as Report];
        const elapsed = (Date.parse(after.observedAt) - Date.parse(before.observedAt)) / 1000;
        if (elapsed > interval) offlineGaps++;
        const booted = (after.uptimeSeconds as number) !== (before.uptimeSeconds as number) + elapsed;
        if (booted !== (after.events?.some((e) => e.type === 'DEVICE_BOOT') ?? false)) wrong.push(`${after.serialNumber} ${after.observedAt}: uptime without DEVICE_BOOT`);
        if (booted && (after.uptimeSeconds as number) >= elapsed) wrong.push(`${after.serialNumber} ${after.observedAt}: uptime not reset`);
        if (booted) boots++;
        for (const [p, port] of (after.interfaces ?? []).entries()) {
          const previous = before.interfaces?.[p]?.counters;
          for (const [name, value] of Object.entries(port.counters)) {
            const old = previous?.[name as keyof typeof port.counters] as number;
            if (booted ? old > 0 && value >= old : value < old) wrong.push(`${after.serialNumber} ${after.observedAt} port ${port.portNumber} ${name}: ${old} -> ${value}`);
          }
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(boots).toBeGreaterThanOrEqual(bySerial.size); // at least the weekly firmware update of each
    expect(offlineGaps).toBeGreaterThan(0);
  });

  it("reports each access point's radios per band, busy and quiet channels following its clients, and a controller's DNS counter that restarts at reboots", () => {
    const reports = reportsOver(5, DAY_START, 8 * 24, 300);
    const aps = reports.filter((r) => r.serialNumber.includes('-AP'));
    for (const r of aps) {
      const bands = (r.radioChannels ?? []).map((c) => c.radioBand);
      expect(new Set(bands).size).toBe(bands.length);
      expect(bands).toEqual([...new Set((r.radios ?? []).map((b) => b.radioBand))]);
    }
    // the AP-W7 broadcasts on 6 GHz too
    expect(aps.find((r) => r.serialNumber === 'M1A3-AP00-0001')?.radioChannels?.map((c) => c.radioBand)).toEqual(['BAND_2_4G', 'BAND_5G', 'BAND_6G']);
    const radios = aps.flatMap((r) => (r.radioChannels ?? []).map((c) => ({ ...c, clients: r.clients?.length ?? 0 })));
    const totals = radios.map((c) => c.totalUtilization);
    // busy and quiet channels
    expect(Math.min(...totals)).toBeLessThan(5);
    expect(Math.max(...totals)).toBeGreaterThan(40);
    // more clients, more of the channel taken by the access point's own BSSs
    const own = (few: boolean) => radios.filter((c) => c.radioBand === 'BAND_5G' && (few ? c.clients <= 1 : c.clients >= 6)).map((c) => c.selfUtilization);
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    expect(own(false).length).toBeGreaterThan(10);
    expect(mean(own(false))).toBeGreaterThan(2 * mean(own(true)));
    // the controller's counter grows between reboots and restarts at each
    const controller = reports.filter((r) => r.serialNumber === 'M1A3-NC00-0001');
    let restarts = 0;
    for (let i = 1; i < controller.length; i++) {
      const [before, after] = [controller[i - 1] as Report, controller[i] as Report];
      const booted = after.events?.some((e) => e.type === 'DEVICE_BOOT') ?? false;
      if (booted) restarts++;
      if (!booted) expect(after.dnsRequests as number).toBeGreaterThanOrEqual(before.dnsRequests as number);
      else expect(after.dnsRequests as number).toBeLessThan(before.dnsRequests as number);
    }
    expect(restarts).toBeGreaterThan(0);
    expect(reports.filter((r) => r.dnsRequests !== undefined).every((r) => r.serialNumber === 'M1A3-NC00-0001')).toBe(true);
  });

  it("reports a PDU's outlets, switched now and then, loaded by the time of day, with growing energy counters and a drifting temperature", () => {
    const pdu = reportsOver(5, DAY_START, 8 * 24, 300).filter((r) => r.serialNumber === 'M1A3-PD00-0001');
    expect(pdu.length).toBeGreaterThan(2000);
    const outlets = pdu.map((r) => r.outlets ?? []);
    expect(outlets.every((o) => o.length === 8)).toBe(true);
    // some on, some off, and outlets switched between reports
    const onCount = outlets.map((o) => o.filter((x) => x.isOn).length);
    expect(Math.min(...onCount)).toBeGreaterThan(0);
    expect(Math.max(...onCount)).toBeLessThan(8);
    const switches = outlets.slice(1).filter((o, i) => o.some((x, n) => x.isOn !== outlets[i]?.[n]?.isOn)).length;
    expect(switches).toBeGreaterThan(5);
    // an outlet that is off draws nothing; the voltage stays around 230 V
    expect(outlets.flat().filter((x) => !x.isOn).every((x) => x.powerWatts === 0 && x.currentAmps === 0)).toBe(true);
    const volts = outlets.flat().map((x) => x.voltageVolts as number);
    expect(Math.min(...volts)).toBeGreaterThan(220);
    expect(Math.max(...volts)).toBeLessThan(240);
    // the core switch (always on) draws more at 14:00 UTC than at 03:00
    const coreAt = (hour: number) => pdu.filter((r) => new Date(r.observedAt).getUTCHours() === hour).map((r) => r.outlets?.[0]?.powerWatts as number);
    const average = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    expect(average(coreAt(14))).toBeGreaterThan(average(coreAt(3)) * 1.2);
    // energy counters grow, but for one weekly reset each
    for (let n = 0; n < 8; n++) {
      const energy = outlets.map((o) => o[n]?.energyKWh as number);
      const resets = energy.slice(1).filter((e, i) => e < (energy[i] as number)).length;
      expect(resets, `outlet ${n + 1}`).toBeLessThanOrEqual(2);
      if (n === 0) expect(Math.max(...energy)).toBeGreaterThan(10);
    }
    const temperatures = pdu.map((r) => r.temperatureCelsius as number);
    expect(Math.max(...temperatures) - Math.min(...temperatures)).toBeGreaterThan(2);
    expect(Math.min(...temperatures)).toBeGreaterThan(15);
    expect(Math.max(...temperatures)).toBeLessThan(45);
  });

  it('has WAN incidents: a link down with WAN_DOWN and WAN_UP, and loss spikes', () => {
    const reports = reportsOver(5, DAY_START, 8 * 24, 300);
    const types = new Set(reports.flatMap((r) => r.events ?? []).map((e) => e.type));
    expect([...types].sort()).toEqual(['DEVICE_BOOT', 'WAN_DOWN', 'WAN_UP']);
    const samples = reports.flatMap((r) => r.uplinkSamples ?? []);
    expect(samples.some((s) => s.lossPercent === 100 && s.latencyMs === null)).toBe(true);
    expect(samples.some((s) => s.lossPercent > 1 && s.lossPercent < 100)).toBe(true);
    expect(samples.filter((s) => s.lossPercent === 0).length).toBeGreaterThan(samples.length * 0.8);
  });

  it('runs a backfill and then live ticks on the interval grid, the same for the same start time', async () => {
    const run = async () => {
      const sent: Report[][] = [];
      const sink: ReportSink = { send: async (reports) => (sent.push([...reports]), { accepted: reports.length, duplicates: 0, rejected: [] }) };
      let clock = (DAY_START + 10 * HOUR + 17) * 1000;
      const summary = await runSimulator({
        fleet: createFleet(NETWORKS, { seed: 9, intervalSeconds: 30 }),
        sink,
        backfillSeconds: 3600,
        signal: new AbortController().signal,
        maxLiveTicks: 3,
        now: () => clock,
        sleep: async (ms) => void (clock += Math.max(0, ms)),
        chunkSize: 500,
      });
      return { summary, sent };
    };
    const first = await run();
    expect(JSON.stringify((await run()).sent)).toBe(JSON.stringify(first.sent));
    const times = [...new Set(first.sent.flat().map((r) => r.observedAt))];
    expect(times).toHaveLength(120 + 3);
    expect(times[0]).toBe('2026-11-24T09:00:30Z');
    expect(times.at(-1)).toBe('2026-11-24T10:01:30Z');
    expect(first.summary).toMatchObject({ devices: 8, reports: first.sent.flat().length, accepted: first.sent.flat().length, rejected: 0 });
    expect(first.summary.backfillReports).toBe(first.sent.slice(0, -3).flat().length);
  });
});
