// The rows the ingest floor writes for a batch: the tables and columns of
// migration 0004 that netgraph's ingest writes (src/ingest/), as
// multi-row statements. `mark(n, type)` is the n-th placeholder of a
// statement ($n::type on PostgreSQL, ? on SQLite).

const ROLLUP_SECONDS = 300;
const bucketOf = (iso) => Math.floor(Date.parse(iso) / 1000 / ROLLUP_SECONDS) * ROLLUP_SECONDS;
const METRICS = ['latency_ms', 'jitter_ms', 'loss_percent', 'rx_bps', 'tx_bps'];
const COUNTERS = ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets', 'rx_errors', 'tx_errors'];

const excluded = (columns) => columns.map((c) => `${c} = excluded.${c}`).join(', ');

/** `VALUES (...), (...)` of `count` rows of `types`, typed on PostgreSQL so the columns are not text. */
function values(types, count, mark) {
  let n = 0;
  return `VALUES ${Array.from({ length: count }, () => `(${types.map((t) => mark(++n, t)).join(', ')})`).join(', ')}`;
}

/**
 * Plans a batch: `receipts` first (their RETURNING says which reports are
 * new), then `rowsFor(stored)`, every other statement's rows for the new
 * reports, in the order netgraph writes them. Each entry has `columns`,
 * `rows` (arrays of values) and either a table with an optional tail
 * (ON CONFLICT ...) or `sql(mark, count)`. `least`/`greatest` are the
 * store's two-argument min and max.
 */
export function buildRows(devices, reports, newUuid, { bool = (b) => b, least, greatest }) {
  const bySerial = new Map(devices.map((d) => [d.serial_number, d]));
  const known = reports.filter((r) => bySerial.has(r.serialNumber));
  const receivedAt = new Date().toISOString();
  const receipts = {
    columns: ['company_id', 'report_id', 'hardware_device_id', 'observed_at', 'received_at'],
    rows: known.map((r) => {
      const d = bySerial.get(r.serialNumber);
      return [d.company_id, r.reportId, d.id, r.observedAt, receivedAt];
    }),
  };
  const rowsFor = (stored) => {
    const fresh = known.filter((r) => stored.has(r.reportId)).map((r) => ({ r, d: bySerial.get(r.serialNumber) }));
    const inNetwork = fresh.filter(({ d }) => d.network_id !== null);
    return [
      ports(fresh, newUuid, bool),
      importedClients(inNetwork),
      clients(inNetwork, bool),
      sessions(inNetwork),
      deviceState(fresh),
      ...series(fresh, inNetwork),
      ...rollups(fresh, inNetwork, bool, least, greatest),
    ];
  };
  return { receipts, rowsFor };
}

function ports(fresh, newUuid, bool) {
  const columns = ['uuid', 'hardware_device_id', 'port_number', 'label', 'port_type', 'is_enabled', 'is_connected', 'is_uplink', 'is_uplink_active', 'is_trunk_port', 'port_speed_mbps', 'native_vlan_id', 'observed_at'];
  return {
    table: 'device_ports',
    columns,
    rows: fresh.flatMap(({ r, d }) =>
      (r.interfaces ?? []).map((p) => [newUuid(), d.id, p.portNumber, p.label ?? null, p.portType ?? null, bool(p.isEnabled), bool(p.isConnected), bool(p.isUplink),
        p.isUplinkActive === undefined || p.isUplinkActive === null ? null : bool(p.isUplinkActive), bool(p.isTrunkPort), p.portSpeedMbps ?? null, p.nativeVLANID ?? null, r.observedAt]),
    ),
    tail: `ON CONFLICT (hardware_device_id, port_number) DO UPDATE SET ${excluded(columns.slice(3))}`,
  };
}

/** A network's imported clients stop being connected at its first client report. */
function importedClients(inNetwork) {
  const networks = [...new Set(inNetwork.map(({ d }) => d.network_id))];
  return {
    columns: ['network_id'],
    rows: networks.map((n) => [n]),
    sql: (mark, count) =>
      `UPDATE network_clients SET is_connected = false WHERE hardware_device_id IS NULL AND is_connected AND network_id IN (${Array.from({ length: count }, (_, i) => mark(i + 1, 'bigint')).join(', ')})`,
  };
}

function clients(inNetwork, bool) {
  const columns = ['network_id', 'mac_address', 'ip', 'last_seen', 'is_connected', 'hostname', 'is_wireless', 'signal', 'vlan_id', 'ssid', 'port_number', 'hardware_device_id'];
  return {
    table: 'network_clients',
    columns,
    rows: inNetwork.flatMap(({ r, d }) =>
      (r.clients ?? []).map((c) => [d.network_id, c.macAddress, c.ip ?? null, r.observedAt, bool(true), c.hostname ?? null, bool(c.isWireless), c.signal ?? null, c.vlanID ?? null, c.ssid ?? null, c.portNumber ?? null, d.id]),
    ),
    tail: `ON CONFLICT (network_id, mac_address) DO UPDATE SET ${excluded(columns.slice(2))}
      WHERE network_clients.hardware_device_id IS NULL OR network_clients.last_seen <= excluded.last_seen`,
  };
}

function sessions(inNetwork) {
  const columns = ['network_id', 'mac_address', 'hardware_device_id', 'ssid', 'vlan_id', 'signal', 'ip', 'hostname', 'first_seen', 'last_seen'];
  return {
    table: 'client_sessions',
    columns,
    rows: inNetwork.flatMap(({ r, d }) =>
      (r.clients ?? []).map((c) => [d.network_id, c.macAddress, d.id, c.ssid ?? null, c.vlanID ?? null, c.signal ?? null, c.ip ?? null, c.hostname ?? null, r.observedAt, r.observedAt]),
    ),
    tail: `ON CONFLICT (network_id, mac_address) WHERE ended_at IS NULL DO UPDATE SET ${excluded(['last_seen', 'ssid', 'vlan_id', 'signal', 'ip', 'hostname'])}
      WHERE client_sessions.hardware_device_id = excluded.hardware_device_id AND client_sessions.last_seen <= excluded.last_seen`,
  };
}

/** netgraph's offline window at its default (DEVICE_OFFLINE_AFTER_SECONDS): a report older than it is stale. */
const OFFLINE_AFTER_MS = 90_000;

function deviceState(fresh) {
  // as netgraph: a stale report leaves last_seen_at NULL on a device that never reported, so its imported state stands
  const staleBefore = Date.now() - OFFLINE_AFTER_MS;
  return {
    columns: ['id', 'observed_at', 'uptime_seconds', 'mac_address', 'staleness'],
    rows: fresh.map(({ r, d }) => [d.id, r.observedAt, r.uptimeSeconds ?? null, r.macAddress ?? null, Date.parse(r.observedAt) < staleBefore ? 'stale' : 'fresh']),
    sql: (mark, count) =>
      `UPDATE hardware_devices SET last_seen_at = CASE WHEN hardware_devices.last_seen_at IS NULL AND u.column5 = 'stale' THEN NULL ELSE u.column2 END,
         state_observed_at = u.column2, uptime_seconds = u.column3, mac_address = u.column4
       FROM (${values(['bigint', 'timestamptz', 'bigint', 'text', 'text'], count, mark)}) AS u WHERE hardware_devices.id = u.column1`,
  };
}

function series(fresh, inNetwork) {
  return [
    {
      table: 'uplink_samples',
      columns: ['network_id', 'hardware_device_id', 'port_number', 'observed_at', ...METRICS],
      rows: fresh.flatMap(({ r, d }) =>
        (r.uplinkSamples ?? []).map((s) => [d.network_id, d.id, s.portNumber, s.observedAt, s.latencyMs ?? null, s.jitterMs ?? null, s.lossPercent ?? null, s.rxBitsPerSecond ?? null, s.txBitsPerSecond ?? null]),
      ),
    },
    {
      table: 'port_counters',
      columns: ['hardware_device_id', 'port_number', 'observed_at', 'uptime_seconds', ...COUNTERS],
      rows: fresh.flatMap(({ r, d }) => counterRows(r, d)),
    },
    {
      // one compact row per report (migration 0040): each client's fields as an array, is_wireless as 0 or 1
      table: 'client_observation_sets',
      columns: ['network_id', 'hardware_device_id', 'observed_at', 'samples'],
      rows: inNetwork.filter(({ r }) => (r.clients ?? []).length > 0).map(({ r, d }) =>
        [d.network_id, d.id, r.observedAt, JSON.stringify(r.clients.map(compactSample))]),
    },
  ];
}

/**
 * A client's metrics (migration 0014) in the order radio_band, channel, signal, snr, rx_rate, tx_rate, rx_bytes,
 * tx_bytes, hw_mode, ssid, vlan_id (client_observations' columns); the radio ones null for a wired client.
 */
const clientSample = (c) => {
  const radio = (v) => (c.isWireless ? (v ?? null) : null);
  return [radio(c.radioBand), radio(c.channel), radio(c.signal), radio(c.snr), radio(c.rxRateMbps), radio(c.txRateMbps), c.rxBytes ?? null, c.txBytes ?? null, radio(c.hwMode), c.ssid ?? null, c.vlanID ?? null];
};

/** A client's fields as a compact row holds them (src/kernel/telemetry.ts, CLIENT_SAMPLE_FIELDS): is_wireless as 0 or 1, without the trailing nulls. */
function compactSample(c) {
  const [band, channel, signal, snr, rxRate, txRate, rx, tx, mode, ssid, vlan] = clientSample(c);
  const fields = [c.macAddress, c.isWireless ? 1 : 0, signal, vlan, ssid, band, channel, snr, rxRate, txRate, rx, tx, mode];
  while (fields.length > 2 && fields[fields.length - 1] === null) fields.pop();
  return fields;
}

/**
 * The client metric rollups (one per device, client and bucket with a metric), folded per key as netgraph does:
 * sums and counts of the averaged metrics, the last sample's other columns, the first counters and the growth between.
 */
function clientMetricRollups(inNetwork, bool) {
  const rollups = new Map();
  for (const { r, d } of inNetwork) {
    const bucket = bucketOf(r.observedAt);
    for (const c of r.clients ?? []) {
      const [band, channel, signal, snr, rxRate, txRate, rx, tx, mode, ssid, vlan] = clientSample(c);
      if ([signal, snr, rxRate, txRate, rx, tx].every((v) => v === null)) continue;
      const key = `${d.id}/${c.macAddress}/${bucket}`;
      const held = rollups.get(key);
      const sums = [signal, snr, rxRate, txRate].flatMap((v, m) => [(held?.[6 + 2 * m] ?? 0) + (v ?? 0), (held?.[7 + 2 * m] ?? 0) + (v === null ? 0 : 1)]);
      const later = held === undefined || held[5] <= r.observedAt;
      const last = later ? [rx, tx, band, channel, mode, ssid, vlan] : held.slice(14, 21);
      const grow = (from, to, i) => (from[i] === null || to[i] === null ? 0 : to[0] < from[0] || to[1] < from[1] ? to[i] : to[i] - from[i]);
      const first = held === undefined ? [r.observedAt, rx, tx] : held.slice(21, 24);
      const earlier = held !== undefined && r.observedAt < first[0];
      const [from, to] = held === undefined ? [[rx, tx], [rx, tx]] : later ? [held.slice(14, 16), [rx, tx]] : earlier ? [[rx, tx], first.slice(1)] : [[rx, tx], [rx, tx]];
      rollups.set(key, [
        d.id, c.macAddress, bucket, d.network_id, bool(c.isWireless), later ? r.observedAt : held[5], ...sums, ...last,
        ...(earlier ? [r.observedAt, rx, tx] : first), (held?.[24] ?? 0) + grow(from, to, 0), (held?.[25] ?? 0) + grow(from, to, 1),
      ]);
    }
  }
  return [...rollups.values()];
}

function counterRows(r, d) {
  return (r.interfaces ?? []).flatMap((p) => {
    const c = p.counters;
    return c ? [[d.id, p.portNumber, r.observedAt, r.uptimeSeconds ?? null, c.rxBytes, c.txBytes, c.rxPackets, c.txPackets, c.rxErrors, c.txErrors]] : [];
  });
}

/** The 5-minute rollups, folded per key here as netgraph does, so one upsert reaches each row. */
const CLIENT_ROLLUP_COLUMNS = [
  'hardware_device_id', 'mac_address', 'bucket', 'network_id', 'is_wireless', 'observed_at',
  ...['signal', 'snr', 'rx_rate', 'tx_rate'].flatMap((m) => [`${m}_sum`, `${m}_count`]),
  'rx_bytes', 'tx_bytes', 'radio_band', 'channel', 'hw_mode', 'ssid', 'vlan_id', 'first_observed_at', 'first_rx_bytes', 'first_tx_bytes', 'rx_growth', 'tx_growth',
];

/** The upsert of a client metric rollup, as src/ingest/report.repository.ts writes it. */
function clientRollupSet() {
  const t = 'client_metric_rollups';
  const later = `excluded.observed_at >= ${t}.observed_at`;
  const at = (row, first, c) => `${row}.${first ? 'first_' : ''}${c}_bytes`;
  const between = (from, fromFirst, to, toFirst, c) =>
    `CASE WHEN ${at(to, toFirst, c)} IS NULL OR ${at(from, fromFirst, c)} IS NULL THEN 0 WHEN ${at(to, toFirst, 'rx')} < ${at(from, fromFirst, 'rx')} ` +
    `OR ${at(to, toFirst, 'tx')} < ${at(from, fromFirst, 'tx')} THEN ${at(to, toFirst, c)} ELSE ${at(to, toFirst, c)} - ${at(from, fromFirst, c)} END`;
  return [
    ...CLIENT_ROLLUP_COLUMNS.slice(3, 21).map((c) =>
      c.endsWith('_sum') || c.endsWith('_count') ? `${c} = ${t}.${c} + excluded.${c}` : `${c} = CASE WHEN ${later} THEN excluded.${c} ELSE ${t}.${c} END`,
    ),
    ...['rx', 'tx'].map(
      (c) =>
        `${c}_growth = ${t}.${c}_growth + excluded.${c}_growth + CASE WHEN excluded.first_observed_at >= ${t}.observed_at THEN ${between(t, false, 'excluded', true, c)} ` +
        `WHEN excluded.observed_at <= ${t}.first_observed_at THEN ${between('excluded', false, t, true, c)} ELSE 0 END`,
    ),
    ...['first_observed_at', 'first_rx_bytes', 'first_tx_bytes'].map((c) => `${c} = CASE WHEN excluded.first_observed_at < ${t}.first_observed_at THEN excluded.${c} ELSE ${t}.${c} END`),
  ].join(', ');
}

function rollups(fresh, inNetwork, bool, least, greatest) {
  const uplink = new Map();
  const counters = new Map();
  const presence = new Map();
  const reportCounts = new Map();
  for (const { r, d } of fresh) {
    for (const s of r.uplinkSamples ?? []) {
      const key = `${d.id}/${s.portNumber}/${bucketOf(s.observedAt)}`;
      const row = uplink.get(key) ?? [d.network_id, d.id, s.portNumber, bucketOf(s.observedAt), ...METRICS.flatMap(() => [0, 0, null, null])];
      [s.latencyMs, s.jitterMs, s.lossPercent, s.rxBitsPerSecond, s.txBitsPerSecond].forEach((v, m) => {
        if (v === null || v === undefined) return;
        const at = 4 + m * 4;
        row[at] += 1;
        row[at + 1] += v;
        row[at + 2] = row[at + 2] === null ? v : Math.min(row[at + 2], v);
        row[at + 3] = row[at + 3] === null ? v : Math.max(row[at + 3], v);
      });
      uplink.set(key, row);
    }
    const bucket = bucketOf(r.observedAt);
    for (const reading of counterRows(r, d)) {
      const key = `${d.id}/${reading[1]}/${bucket}`;
      const held = counters.get(key);
      if (held === undefined || held[3] < reading[2]) counters.set(key, [reading[0], reading[1], bucket, ...reading.slice(2)]);
    }
  }
  for (const { r, d } of inNetwork) {
    const bucket = bucketOf(r.observedAt);
    const countKey = `${d.network_id}/${bucket}`;
    reportCounts.set(countKey, [d.network_id, bucket, (reportCounts.get(countKey)?.[2] ?? 0) + 1]);
    if ((r.clients ?? []).length === 0) continue;
    // the MAC addresses a device listed in a bucket, by kind (migration 0043)
    const key = `${d.network_id}/${bucket}/${d.id}`;
    const listed = presence.get(key) ?? { network: d.network_id, bucket, device: d.id, wireless: new Set(), wired: new Set() };
    for (const c of r.clients) (c.isWireless ? listed.wireless : listed.wired).add(c.macAddress);
    presence.set(key, listed);
  }
  const metricSet = METRICS.flatMap((m) => [
    `${m}_count = uplink_rollups.${m}_count + excluded.${m}_count`,
    `${m}_sum = uplink_rollups.${m}_sum + excluded.${m}_sum`,
    `${m}_min = ${least(`uplink_rollups.${m}_min`, `excluded.${m}_min`)}`,
    `${m}_max = ${greatest(`uplink_rollups.${m}_max`, `excluded.${m}_max`)}`,
  ]);
  return [
    {
      // a steady fleet lists the same clients in every report, so a device's row of a bucket never gains one: no union on conflict
      table: 'client_presence_set_rollups',
      columns: ['network_id', 'bucket', 'hardware_device_id', 'wireless_macs', 'wired_macs'],
      rows: [...presence.values()].map((p) => [p.network, p.bucket, p.device, JSON.stringify([...p.wireless].sort()), JSON.stringify([...p.wired].sort())]),
      tail: 'ON CONFLICT DO NOTHING',
    },
    {
      table: 'uplink_rollups',
      columns: ['network_id', 'hardware_device_id', 'port_number', 'bucket', ...METRICS.flatMap((m) => [`${m}_count`, `${m}_sum`, `${m}_min`, `${m}_max`])],
      rows: [...uplink.values()],
      tail: `ON CONFLICT (hardware_device_id, port_number, bucket) DO UPDATE SET ${metricSet.join(', ')}`,
    },
    {
      table: 'port_counter_rollups',
      columns: ['hardware_device_id', 'port_number', 'bucket', 'observed_at', 'uptime_seconds', ...COUNTERS],
      rows: [...counters.values()],
      tail: `ON CONFLICT (hardware_device_id, port_number, bucket) DO UPDATE SET ${excluded(['observed_at', 'uptime_seconds', ...COUNTERS])}
        WHERE port_counter_rollups.observed_at < excluded.observed_at`,
    },
    {
      table: 'client_metric_rollups',
      columns: CLIENT_ROLLUP_COLUMNS,
      rows: clientMetricRollups(inNetwork, bool),
      tail: `ON CONFLICT (hardware_device_id, mac_address, bucket) DO UPDATE SET ${clientRollupSet()}`,
    },
    {
      table: 'report_rollups',
      columns: ['network_id', 'bucket', 'report_count'],
      rows: [...reportCounts.values()],
      tail: 'ON CONFLICT (network_id, bucket) DO UPDATE SET report_count = report_rollups.report_count + excluded.report_count',
    },
  ];
}
