import type { SqlContext } from '../../db/store.js';
import { chunks } from './report.rows.js';
import type { ClientReport } from './report.schema.js';

/** The SQL of a network's clients as reports list them: who is connected through which device, and their history. */
export function createReportClientRepository({ db }: SqlContext) {
  /**
   * Client history: a client's session on this device goes on while the
   * device keeps listing it; it ends when the device's set leaves it out or
   * it shows up on another device (which opens a new one).
   */
  const recordSessions = async (networkId: number, deviceId: number, clients: readonly ClientReport[], observedAt: string): Promise<void> => {
    const macs = clients.map((c) => c.macAddress);
    let departed = db
      .updateTable('client_sessions')
      .set({ ended_at: observedAt })
      .where('network_id', '=', networkId)
      .where('hardware_device_id', '=', deviceId)
      .where('ended_at', 'is', null)
      .where('last_seen', '<=', observedAt);
    if (macs.length > 0) departed = departed.where('mac_address', 'not in', macs);
    await departed.execute();
    if (macs.length === 0) return;
    await db
      .updateTable('client_sessions')
      .set({ ended_at: observedAt })
      .where('network_id', '=', networkId)
      .where('mac_address', 'in', macs)
      .where('ended_at', 'is', null)
      .where('last_seen', '<=', observedAt)
      .where((eb) => eb.or([eb('hardware_device_id', 'is', null), eb('hardware_device_id', '<>', deviceId)]))
      .execute();
    for (const chunk of chunks(clients, 11)) {
      await db
        .insertInto('client_sessions')
        .values(
          chunk.map((c) => ({
            network_id: networkId,
            mac_address: c.macAddress,
            hardware_device_id: deviceId,
            ssid: c.ssid,
            vlan_id: c.vlanID,
            signal: c.signal,
            ip: c.ip,
            hostname: c.hostname,
            first_seen: observedAt,
            last_seen: observedAt,
            ended_at: null,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['network_id', 'mac_address'])
            .where('ended_at', 'is', null)
            .doUpdateSet((eb) => ({
              last_seen: eb.ref('excluded.last_seen'),
              ssid: eb.ref('excluded.ssid'),
              vlan_id: eb.ref('excluded.vlan_id'),
              signal: eb.ref('excluded.signal'),
              ip: eb.ref('excluded.ip'),
              hostname: eb.ref('excluded.hostname'),
            }))
            .where((eb) =>
              eb.and([
                eb('client_sessions.hardware_device_id', '=', eb.ref('excluded.hardware_device_id')),
                eb('client_sessions.last_seen', '<=', eb.ref('excluded.last_seen')),
              ]),
            ),
        )
        .execute();
    }
  };

  return {
    /**
     * Merges a device's complete client set seen at `observedAt` into its
     * network: listed clients are connected through it unless a later report
     * (of any device) listed them; the device's clients missing from the set
     * are no longer connected. Imported clients (no reporting device) stop
     * being connected at the network's first client report.
     */
    async mergeClients(networkId: number, deviceId: number, clients: readonly ClientReport[], observedAt: string): Promise<void> {
      await db
        .updateTable('network_clients')
        .set({ is_connected: false })
        .where('network_id', '=', networkId)
        .where('hardware_device_id', 'is', null)
        .where('is_connected', '=', true)
        .execute();
      const macs = clients.map((c) => c.macAddress);
      let depart = db
        .updateTable('network_clients')
        .set({ is_connected: false })
        .where('hardware_device_id', '=', deviceId)
        .where('is_connected', '=', true)
        .where('last_seen', '<=', observedAt);
      if (macs.length > 0) depart = depart.where('mac_address', 'not in', macs);
      await depart.execute();
      for (const chunk of chunks(clients, 13)) {
        await db
          .insertInto('network_clients')
          .values(
            chunk.map((c) => ({
              network_id: networkId,
              mac_address: c.macAddress,
              ip: c.ip,
              last_seen: observedAt,
              is_connected: true,
              hostname: c.hostname,
              is_wireless: c.isWireless,
              signal: c.signal,
              vlan_id: c.vlanID,
              ssid: c.ssid,
              port_number: c.portNumber,
              hardware_device_id: deviceId,
            })),
          )
          .onConflict((oc) =>
            oc
              .columns(['network_id', 'mac_address'])
              .doUpdateSet((eb) => ({
                ip: eb.ref('excluded.ip'),
                last_seen: eb.ref('excluded.last_seen'),
                is_connected: eb.ref('excluded.is_connected'),
                hostname: eb.ref('excluded.hostname'),
                is_wireless: eb.ref('excluded.is_wireless'),
                signal: eb.ref('excluded.signal'),
                vlan_id: eb.ref('excluded.vlan_id'),
                ssid: eb.ref('excluded.ssid'),
                port_number: eb.ref('excluded.port_number'),
                hardware_device_id: eb.ref('excluded.hardware_device_id'),
              }))
              .where((eb) =>
                eb.or([
                  eb('network_clients.hardware_device_id', 'is', null),
                  eb('network_clients.last_seen', '<=', eb.ref('excluded.last_seen')),
                ]),
              ),
          )
          .execute();
      }
      await recordSessions(networkId, deviceId, clients, observedAt);
    },

    recordSessions,
  };
}
