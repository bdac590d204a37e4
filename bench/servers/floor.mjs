// The raw-SQL floor: node:http and pg, one hand-written SQL statement per
// request that builds the whole JSON answer in PostgreSQL. No GraphQL, no API
// key, no company scope. It is what the benchmark calls 1.00.
//
//   POST /<query>   body {"arg": "<the argument>"}   ->   {"data":{"<query>": ...}}
//
// Environment: DATABASE_URL (required), PORT (default 4100; 0 picks one),
// HOST (default 127.0.0.1), WORKERS (default 2), DATABASE_POOL_SIZE (default 10).
import http from 'node:http';
import pg from 'pg';
import { runWorkers } from './workers.mjs';

const DEVICE_ORDER = 'ORDER BY v.label, v.uuid';

/** One statement per query; $1 is the argument. Orders match netgraph's documented list orders. */
const FLOOR_SQL = {
  virtualDevice: `
    SELECT json_build_object('UUID', v.uuid, 'label', v.label, 'isOnline', v.is_online)::text
    FROM virtual_devices v WHERE v.uuid = $1::uuid`,
  hardwareDevice: `
    SELECT json_build_object('serialNumber', h.serial_number, 'deviceType', h.device_type,
      'deviceModel', h.device_model, 'isConnectedToBackend', h.is_connected_to_backend)::text
    FROM hardware_devices h WHERE h.serial_number = $1`,
  networksForCompany: `
    SELECT coalesce((SELECT json_agg(json_build_object('UUID', n.uuid, 'label', n.label, 'slug', n.slug) ORDER BY n.label, n.uuid)
      FROM networks n WHERE n.company_id = c.id), '[]')::text
    FROM companies c WHERE c.slug = $1`,
  virtualDevicesForNetwork: `
    SELECT coalesce((SELECT json_agg(json_build_object('UUID', v.uuid, 'label', v.label, 'deviceType', v.device_type,
        'deviceModel', v.device_model, 'isOnline', v.is_online) ${DEVICE_ORDER})
      FROM virtual_devices v WHERE v.network_id = n.id), '[]')::text
    FROM networks n WHERE n.uuid = $1::uuid`,
  networkClients: `
    SELECT coalesce((SELECT json_agg(json_build_object('macAddress', cl.mac_address, 'ip', cl.ip,
        'lastSeen', to_char(cl.last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY cl.mac_address)
      FROM network_clients cl WHERE cl.network_id = n.id AND cl.is_connected), '[]')::text
    FROM networks n WHERE n.uuid = $1::uuid`,
  companyBySlug: `
    SELECT json_build_object('name', c.name, 'networks', coalesce((SELECT json_agg(json_build_object(
        'UUID', n.uuid, 'label', n.label, 'isActive', n.is_active,
        'mailingAddress', CASE WHEN n.mailing_city IS NULL AND n.mailing_subdivision_code IS NULL THEN NULL
          ELSE json_build_object('city', n.mailing_city, 'subdivisionCode', n.mailing_subdivision_code) END,
        'virtualDevices', coalesce((SELECT json_agg(json_build_object('label', v.label, 'deviceType', v.device_type,
            'hardwareDevice', (SELECT json_build_object('serialNumber', h.serial_number, 'isConnectedToBackend', h.is_connected_to_backend)
              FROM hardware_devices h WHERE h.virtual_device_id = v.id)) ${DEVICE_ORDER})
          FROM virtual_devices v WHERE v.network_id = n.id), '[]'),
        'vlans', coalesce((SELECT json_agg(json_build_object('name', l.name, 'vlanID', l.vlan_id, 'isEnabled', l.is_enabled) ORDER BY l.name, l.vlan_id)
          FROM vlans l WHERE l.network_id = n.id), '[]'),
        'ssids', coalesce((SELECT json_agg(json_build_object('ssid', s.ssid, 'isEnabled', s.is_enabled) ORDER BY s.ssid)
          FROM ssids s WHERE s.network_id = n.id), '[]')
      ) ORDER BY n.label, n.uuid) FROM networks n WHERE n.company_id = c.id), '[]'))::text
    FROM companies c WHERE c.slug = $1`,
};

function startWorker({ url, port, host, poolSize }) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => undefined);
  const statements = new Map(Object.entries(FLOOR_SQL).map(([name, text]) => [`/${name}`, { name: `floor_${name}`, text }]));

  const server = http.createServer((request, response) => {
    const statement = request.method === 'POST' ? statements.get(request.url) : undefined;
    if (!statement) {
      response.writeHead(404).end();
      return;
    }
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      let arg;
      try {
        arg = JSON.parse(Buffer.concat(chunks).toString('utf8')).arg;
      } catch {
        response.writeHead(400).end();
        return;
      }
      // a named statement is prepared once per connection, as the peers do
      pool.query({ name: statement.name, text: statement.text, values: [arg], rowMode: 'array' }).then(
        (result) => {
          const json = result.rows[0]?.[0] ?? 'null';
          response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          response.end(`{"data":{"${request.url.slice(1)}":${json}}}`);
        },
        (error) => {
          console.error(`floor: ${error.message}`);
          response.writeHead(500).end();
        },
      );
    });
  });
  server.listen(port, host, () => {
    console.log(`floor listening on http://${host}:${server.address().port}`);
  });
  const stop = () => server.close(() => void pool.end().then(() => process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('floor: DATABASE_URL is required');
  const options = {
    url,
    port: Number(process.env.PORT ?? 4100),
    host: process.env.HOST ?? '127.0.0.1',
    poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  };
  runWorkers(Number(process.env.WORKERS ?? 2), () => startWorker(options));
}

main();
