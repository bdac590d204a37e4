import { dateTime, text } from '../../engine/read.model.js';
import type { ArgumentValues, GraphQLFeature, SqlContext } from '../../engine/read.model.js';
import { decodeCursor } from './change.cursor.js';

/** The most changes one page holds. */
export const MAX_CHANGE_PAGE = 1000;

/**
 * Changes that count as one list element of a page's cost (docs/limits.md):
 * a change is one row of one index range with no lookup of its own, like a
 * MAC table's entry, so a full page of 1,000 with every field costs 1 + 1 + 100 × 6 = 602.
 */
const CHANGES_PER_COST_ELEMENT = 10;

/** The position after which the page starts: the cursor's, or before every change. */
function position(args: ArgumentValues): { txid: number; id: number } {
  return decodeCursor(args.after) ?? { txid: -1, id: -1 };
}

/**
 * The company's served changes after the cursor, for the company row `n`,
 * as a condition on the change row `ch`: past the cursor in (txid, id)
 * order, and of a finished transaction, so nothing can commit below it later.
 */
function servedAfter(c: SqlContext, n: string, ch: string): string {
  return (
    `${ch}.company_id = ${n}.id AND (${ch}.txid, ${ch}.id) > ` +
    `(${c.value('bigint', (args) => position(args).txid)}, ${c.value('bigint', (args) => position(args).id)}) ` +
    `AND ${c.dialect.finishedTransaction(`${ch}.txid`)}`
  );
}

/** The page's rows: the first `limit` served changes after the cursor. */
function page(c: SqlContext, n: string, ch: string): string {
  return `(SELECT ${ch}.* FROM changes ${ch} WHERE ${servedAfter(c, n, ch)} ORDER BY ${ch}.txid, ${ch}.id LIMIT ${c.arg('limit')})`;
}

/** The opaque cursor of the change row `ch`: base64url of `<txid>.<id>`. */
const cursorOf = (c: SqlContext, ch: string): string => c.dialect.base64url(`CAST(${ch}.txid AS TEXT) || '.' || CAST(${ch}.id AS TEXT)`);

/** The change feed (docs/changes.md): what changed in the company, in commit order, paged by cursor. */
export const CHANGE_FEATURE = {
  sdl: /* GraphQL */ `
"""What happened to an object of the change feed."""
enum ChangeKind {
  """The object was created (or imported)."""
  CREATED
  """Some of its fields changed; \`fields\` holds all of them as they are now."""
  UPDATED
  """The object is gone; \`fields\` is null."""
  DELETED
  """A HardwareDevice came online (its first report, or one after it fell silent)."""
  ONLINE
  """A HardwareDevice fell silent for DEVICE_OFFLINE_AFTER_SECONDS."""
  OFFLINE
}

"""netgraph's own (not in Meter's API): one change of the company's inventory or configuration."""
type Change {
  """Where this change is in the feed: pass it as \`after\` to continue behind it. Opaque."""
  cursor: String!
  """The object's type as the API names it: \`Company\`, \`Network\`, \`VirtualDevice\`, \`HardwareDevice\`, \`VLAN\`, \`SSID\`, \`FirewallRule\`, \`NetworkClientBlocklistEntry\`, \`InterVLANCommunicationPermittedPair\`, \`IDSIPSConfig\`, \`AlertReceiver\` or \`WebhookEndpoint\`."""
  objectType: String!
  """The object's UUID; for a HardwareDevice, which the API identifies by serial number, its serialNumber."""
  objectUUID: String!
  kind: ChangeKind!
  """When the change was made (for ONLINE and OFFLINE: when the device came online or fell silent)."""
  at: DateTime!
  """The object's fields after the change as JSON text (docs/changes.md lists them per type); null for DELETED."""
  fields: String
}

"""netgraph's own (not in Meter's API): one page of the change feed."""
type ChangePage {
  """The changes after the cursor, in commit order."""
  changes: [Change!]!
  """The cursor to pass as \`after\` next: the last change's, or the \`after\` given when the page is empty (null when there was none)."""
  endCursor: String
  """Whether more changes follow this page now."""
  hasMore: Boolean!
}

extend type Query {
  """
  netgraph's own (not in Meter's API): the changes of the key's company in
  commit order, after the cursor \`after\` (from the oldest kept change when
  null): networks, virtual and hardware devices (their assignment, online
  and offline), VLANs, SSIDs and the configuration objects, each with its
  fields after the change. No change is skipped or repeated across pages,
  also when several processes commit concurrently (docs/changes.md).
  Changes are kept EVENT_RETENTION_DAYS; a cursor whose change is gone
  answers CURSOR_EXPIRED: resync from empty.
  """
  changes(
    "The endCursor (or a change's cursor) to continue after; null: from the oldest kept change."
    after: String
    "The most changes on the page, 1 to ${MAX_CHANGE_PAGE}."
    limit: Int = 100
  ): ChangePage
}
`,
  readModel: {
    ChangePage: {
      changes: {
        kind: 'list',
        table: (c, n) => page(c, n, 'pc'),
        join: (e) => `${e}.id IS NOT NULL`,
        orderBy: (e) => `${e}.txid, ${e}.id`,
      },
      endCursor: {
        kind: 'computed',
        type: 'string',
        nullable: true,
        sql: (n, c) => `COALESCE((SELECT ${cursorOf(c, 'ec')} FROM ${page(c, n, 'ep')} ec ORDER BY ec.txid DESC, ec.id DESC LIMIT 1), ${c.arg('after')})`,
      },
      hasMore: {
        kind: 'computed',
        type: 'boolean',
        sql: (n, c) =>
          `((SELECT count(*) FROM (SELECT 1 AS one FROM changes hm WHERE ${servedAfter(c, n, 'hm')} ` +
          `LIMIT ${c.value('integer', (args) => (args.limit as number) + 1)}) hx) > ${c.arg('limit')})`,
      },
    },
    Change: {
      cursor: { kind: 'computed', type: 'string', sql: (ch, c) => cursorOf(c, ch) },
      objectType: text('object_type'),
      objectUUID: text('object_id'),
      kind: text('kind'),
      at: dateTime('changed_at'),
      fields: text('fields', true),
    },
  },
  roots: {
    changes: {
      table: 'companies',
      arguments: [
        { name: 'after', type: 'text', check: (value) => decodeCursor(value) !== undefined, rule: 'a cursor of this feed (an endCursor or a change\'s cursor)' },
        { name: 'limit', type: 'int', default: 100 },
      ],
      check: (args) => {
        const limit = args.limit as number;
        if (limit < 1 || limit > MAX_CHANGE_PAGE) return { argument: 'limit', message: `must be 1 to ${MAX_CHANGE_PAGE}: page through more with after.` };
        return undefined;
      },
      // the caller's company, while the cursor's change is kept (NULL otherwise: CURSOR_EXPIRED)
      where: (t, c) =>
        `${t}.id = ${c.company()} AND (${c.value('boolean', (args) => args.after === null || args.after === undefined)} OR ` +
        `EXISTS (SELECT 1 FROM changes cx WHERE cx.company_id = ${t}.id AND cx.id = ${c.value('bigint', (args) => position(args).id)}))`,
      nullAnswer: {
        code: 'CURSOR_EXPIRED',
        argument: 'after',
        message: 'The cursor after is older than the oldest kept change (changes are kept EVENT_RETENTION_DAYS): resync from empty with after: null.',
      },
    },
  },
  internalRoots: {},
  mutations: {},
  listSizes: {
    'ChangePage.changes': (args) => {
      const limit = args === undefined ? MAX_CHANGE_PAGE : Math.max(1, Math.min(MAX_CHANGE_PAGE, (args.limit as number | null) ?? 100));
      return Math.ceil(limit / CHANGES_PER_COST_ELEMENT);
    },
  },
  listItemsPerElement: { 'ChangePage.changes': CHANGES_PER_COST_ELEMENT },
} satisfies GraphQLFeature;
