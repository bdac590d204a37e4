import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';

/** What the foreign-BSSID rules of docs/security.md look at in one network, as its latest reports left it. */
export interface ForeignApContext {
  /** The BSSIDs the network's own access points broadcast (their radios). */
  readonly ownBssids: ReadonlySet<string>;
  /** The names of the network's SSIDs. */
  readonly ssids: ReadonlySet<string>;
  /** MAC addresses the network's switches learned on a port that are none of the network's own devices'. */
  readonly wiredMacs: readonly string[];
}

/** The rule that selected a foreign BSSID: on the wire (ROGUE) or with one of the network's SSIDs (HONEYPOT). */
export type ForeignApKind = 'ROGUE' | 'HONEYPOT';

/** How long a rule must not have selected a BSSID in a network before selecting it again is a new detection. */
export const FOREIGN_AP_QUIET_MS = 24 * 3_600_000;

/**
 * The SQL of the alerts ingest derives (docs/alerts.md): the context of the
 * rogue and honeypot rules, and the claim that makes a detection an event
 * once across every process.
 */
export function createReportAlertRepository(db: Kysely<Database>) {
  const hardwareOf = (networkId: number) =>
    db.selectFrom('hardware_devices as h').innerJoin('virtual_devices as v', 'v.id', 'h.virtual_device_id').select('h.id').where('v.network_id', '=', networkId);
  return {
    /** The rules' context of one network, read in the request's transaction (after its reports' radios and MAC tables were stored). */
    async foreignApContext(networkId: number): Promise<ForeignApContext> {
      const radios = await db.selectFrom('device_radios').select('bssid').where('hardware_device_id', 'in', hardwareOf(networkId)).execute();
      const ssids = await db.selectFrom('ssids').select('ssid').where('network_id', '=', networkId).execute();
      const own = db.selectFrom('hardware_devices as h').innerJoin('virtual_devices as v', 'v.id', 'h.virtual_device_id').select('h.mac_address').where('v.network_id', '=', networkId).where('h.mac_address', 'is not', null);
      const wired = await db
        .selectFrom('switch_mac_entries')
        .select('mac_address')
        .distinct()
        .where('hardware_device_id', 'in', hardwareOf(networkId))
        .where('mac_address', 'not in', own.$narrowType<{ mac_address: string }>())
        .execute();
      return { ownBssids: new Set(radios.map((r) => r.bssid)), ssids: new Set(ssids.map((s) => s.ssid)), wiredMacs: wired.map((w) => w.mac_address) };
    },

    /**
     * Records that `kind` selected `bssid` in the network at `at`; true when
     * that is a new detection: the first ever, or the first after
     * FOREIGN_AP_QUIET_MS without one. Conditional writes on the row of the
     * (network, kind, BSSID) key, so of concurrent transactions exactly one sees it new.
     */
    async claimForeignAp(networkId: number, kind: ForeignApKind, bssid: string, at: string): Promise<boolean> {
      const key = { network_id: networkId, kind, bssid };
      const inserted = await db
        .insertInto('foreign_ap_detections')
        .values({ ...key, last_detected_at: at })
        .onConflict((oc) => oc.columns(['network_id', 'kind', 'bssid']).doNothing())
        .returning('bssid')
        .execute();
      if (inserted.length > 0) return true;
      const quietSince = new Date(Date.parse(at) - FOREIGN_AP_QUIET_MS).toISOString();
      const again = await db
        .updateTable('foreign_ap_detections')
        .set({ last_detected_at: at })
        .where('network_id', '=', networkId)
        .where('kind', '=', kind)
        .where('bssid', '=', bssid)
        .where('last_detected_at', '<=', quietSince)
        .returning('bssid')
        .execute();
      if (again.length > 0) return true;
      await db
        .updateTable('foreign_ap_detections')
        .set({ last_detected_at: at })
        .where('network_id', '=', networkId)
        .where('kind', '=', kind)
        .where('bssid', '=', bssid)
        .where('last_detected_at', '<', at)
        .execute();
      return false;
    },
  };
}
