import { describe, expect, it } from 'vitest';
import { macTableChanges } from './report.mac-table.js';
import type { StoredMacEntry } from './report.mac-table.js';

const A = '0a:00:00:00:00:01';
const B = '0a:00:00:00:00:02';
const T = (s: number) => `2026-11-24T10:00:${String(s).padStart(2, '0')}.000Z`;
const stored = (mac: string, port: number, since: string): StoredMacEntry => ({ hardware_device_id: '7', mac_address: mac, vlan_id: 10, port_number: port, updated_at: since });
const listed = (macAddress: string, portNumber: number, vlanID: number | null = 10) => ({ macAddress, vlanID, portNumber });

describe('macTableChanges', () => {
  it('writes nothing for a table that lists what is stored', () => {
    expect(macTableChanges([{ deviceId: 7, sets: [{ observedAt: T(30), items: [listed(A, 1)] }] }], [stored(A, 1, T(0))])).toEqual({ changed: [], gone: [], history: [] });
  });

  it('closes the stored interval of an entry that moved or left, by the key it opened with, and opens the moved one (the intervals still open last)', () => {
    const changes = macTableChanges([{ deviceId: 7, sets: [{ observedAt: T(30), items: [listed(A, 2)] }] }], [stored(A, 1, T(0)), stored(B, 3, T(5))]);
    expect(changes.changed).toEqual([{ hardware_device_id: 7, mac_address: A, vlan_id: 10, port_number: 2, updated_at: T(30) }]);
    expect(changes.gone.map((g) => g.mac_address)).toEqual([B]);
    expect(changes.history).toEqual([
      { hardware_device_id: 7, mac_address: A, vlan_id: 10, port_number: 1, first_seen_at: T(0), gone_at: T(30) },
      { hardware_device_id: 7, mac_address: B, vlan_id: 10, port_number: 3, first_seen_at: T(5), gone_at: T(30) },
      { hardware_device_id: 7, mac_address: A, vlan_id: 10, port_number: 2, first_seen_at: T(30), gone_at: null },
    ]);
  });

  it('steps through the tables of a request: an entry that left and came back has two intervals and dates from its return', () => {
    const changes = macTableChanges(
      [
        {
          deviceId: 7,
          sets: [
            { observedAt: T(10), items: [listed(A, 1, null)] },
            { observedAt: T(20), items: [] },
            { observedAt: T(30), items: [listed(A, 1, null)] },
          ],
        },
      ],
      [],
    );
    expect(changes.changed).toEqual([{ hardware_device_id: 7, mac_address: A, vlan_id: 0, port_number: 1, updated_at: T(30) }]);
    expect(changes.history).toEqual([
      { hardware_device_id: 7, mac_address: A, vlan_id: 0, port_number: 1, first_seen_at: T(10), gone_at: T(20) },
      { hardware_device_id: 7, mac_address: A, vlan_id: 0, port_number: 1, first_seen_at: T(30), gone_at: null },
    ]);
  });

  it('leaves out an interval that opened and closed at the same time, and keeps the one that follows', () => {
    const changes = macTableChanges(
      [
        {
          deviceId: 7,
          sets: [
            { observedAt: T(10), items: [listed(A, 1)] },
            { observedAt: T(10), items: [listed(A, 2)] },
          ],
        },
      ],
      [],
    );
    expect(changes.history).toEqual([{ hardware_device_id: 7, mac_address: A, vlan_id: 10, port_number: 2, first_seen_at: T(10), gone_at: null }]);
  });
});
