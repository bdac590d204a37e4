import type { AlertTables } from '../features/alert/alert.tables.js';
import type { ApiKeyTables } from '../features/api-key/api-key.tables.js';
import type { BssidTables } from '../features/bssid/bssid.tables.js';
import type { ClientTables } from '../features/client/client.tables.js';
import type { CollectorRangeTables } from '../features/collector-range/collector-range.tables.js';
import type { CollectorTargetTables } from '../features/collector-target/collector-target.tables.js';
import type { CompanyTables } from '../features/company/company.tables.js';
import type { ConnectionEventTables } from '../features/connection-event/connection-event.tables.js';
import type { DeviceTables } from '../features/device/device.tables.js';
import type { DiscoveredDeviceTables } from '../features/discovered-device/discovered-device.tables.js';
import type { EventTables } from '../features/event/event.tables.js';
import type { MacTableTables } from '../features/mac-table/mac-table.tables.js';
import type { NetworkTables } from '../features/network/network.tables.js';
import type { PduTables } from '../features/pdu/pdu.tables.js';
import type { PortTables } from '../features/port/port.tables.js';
import type { RequestLogTables } from '../features/request-log/request-log.tables.js';
import type { SecurityTables } from '../features/security/security.tables.js';
import type { SsidTables } from '../features/ssid/ssid.tables.js';
import type { UserTables } from '../features/user/user.tables.js';
import type { VlanTables } from '../features/vlan/vlan.tables.js';
import type { WebhookTables } from '../features/webhook/webhook.tables.js';
import type { ClientSeriesTables } from '../ingest/client-series.tables.js';
import type { SeriesTables } from '../ingest/series.tables.js';
import type { AuditTables } from '../platform/audit/audit.tables.js';
import type { ChangeTables } from '../platform/changes/changes.tables.js';

/**
 * The tables as the query builder sees them: the union of each folder's
 * `*.tables.ts` (a feature's tables beside its repository; ingest's series in
 * src/ingest/). Booleans are 0/1 integers on
 * SQLite and timestamps are ISO 8601 strings on both stores (the drivers are
 * set up that way in db/); repositories turn rows into domain objects.
 */
export interface Database
  extends AlertTables,
    ApiKeyTables,
    BssidTables,
    ClientTables,
    CollectorRangeTables,
    CollectorTargetTables,
    CompanyTables,
    ConnectionEventTables,
    DeviceTables,
    DiscoveredDeviceTables,
    EventTables,
    MacTableTables,
    NetworkTables,
    PduTables,
    PortTables,
    RequestLogTables,
    SecurityTables,
    SsidTables,
    UserTables,
    VlanTables,
    WebhookTables,
    ClientSeriesTables,
    SeriesTables,
    AuditTables,
    ChangeTables {}
