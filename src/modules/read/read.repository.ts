import type { ParamType, SqlDialect } from '../../db/dialect.js';
import type { Row, Store } from '../../db/store.js';
import { invariant } from '../../errors.js';

/**
 * What to read, independent of GraphQL: for an object type, the fields to
 * return under their response keys, in order. Built by graphql/plan.ts.
 */
export interface Selection {
  readonly typeName: string;
  readonly fields: readonly SelectedField[];
}

/** One field of a selection: `__typename`, a column, or a nested selection. */
export interface SelectedField {
  readonly key: string;
  readonly name: string;
  readonly selection?: Selection;
}

/** One root field to read: which root, its response key and what to select below it. */
export interface RootRead {
  readonly root: RootName | InternalRootName;
  readonly selection: Selection;
}

export type RootName =
  | 'virtualDevice'
  | 'hardwareDevice'
  | 'networksForCompany'
  | 'virtualDevicesForNetwork'
  | 'networkClients'
  | 'companyBySlug';

/**
 * Roots that are not Query fields: mutations read the object they changed
 * back through these, scoped by company like every other root.
 */
export type InternalRootName = 'networkByUUID' | 'vlanByUUID' | 'ssidByUUID';

/**
 * A compiled read: one SQL statement answering every root field of a document,
 * plus the API key check. Only the parameter values change between requests.
 */
export interface CompiledRead {
  readonly text: string;
  /** How each parameter is filled: the key id, the company id, or root field i's argument. */
  readonly slots: readonly ParamSlot[];
  /**
   * The same read for several callers at once, on stores that coalesce
   * concurrent reads (PostgreSQL): each parameter becomes an array of the
   * callers' values, and each caller gets its own row (see Store.selectRow).
   */
  readonly batchText?: string;
}

export type ParamSlot = { readonly kind: 'key' } | { readonly kind: 'company' } | { readonly kind: 'arg'; readonly root: number };

/** The values a compiled read needs at run time. */
export interface ReadParams {
  readonly keyId: number | null;
  readonly companyId: number;
  /** The one argument of each root field, in root order. */
  readonly args: readonly unknown[];
}

/** The result of a compiled read: whether the key is still active, and each root's JSON text (null when absent). */
export interface ReadResult {
  readonly keyActive: boolean;
  readonly roots: readonly (string | null)[];
}

type ScalarType = 'string' | 'boolean' | 'integer' | 'datetime';

type FieldMapping =
  | { readonly kind: 'scalar'; readonly column: string; readonly type: ScalarType; readonly nullable?: boolean }
  | { readonly kind: 'embedded'; readonly nullWhen: (alias: string) => string }
  | {
      readonly kind: 'object' | 'list';
      readonly table: string;
      readonly join: (child: string, parent: string) => string;
      readonly orderBy?: (child: string) => string;
    };

type ListMapping = FieldMapping & { readonly kind: 'list' };

const NETWORKS_OF_COMPANY: ListMapping = {
  kind: 'list',
  table: 'networks',
  join: (n, c) => `${n}.company_id = ${c}.id`,
  orderBy: (n) => `${n}.label, ${n}.uuid`,
};
const DEVICES_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'virtual_devices',
  join: (v, n) => `${v}.network_id = ${n}.id`,
  orderBy: (v) => `${v}.label, ${v}.uuid`,
};
const CONNECTED_CLIENTS_OF_NETWORK: ListMapping = {
  kind: 'list',
  table: 'network_clients',
  join: (cl, n) => `${cl}.network_id = ${n}.id AND ${cl}.is_connected`,
  orderBy: (cl) => `${cl}.mac_address`,
};

const text = (column: string, nullable = false): FieldMapping => ({ kind: 'scalar', column, type: 'string', nullable });
const bool = (column: string): FieldMapping => ({ kind: 'scalar', column, type: 'boolean' });

/**
 * How each GraphQL field maps to the tables. List orders are part of the
 * contract (documented in the schema): label then UUID, name then vlanID,
 * ssid, MAC address; text compares by code point on both stores.
 */
const READ_MODEL: Record<string, Record<string, FieldMapping>> = {
  Company: {
    uuid: text('uuid'),
    name: text('name'),
    slug: text('slug'),
    networks: NETWORKS_OF_COMPANY,
  },
  Network: {
    UUID: text('uuid'),
    label: text('label'),
    slug: text('slug'),
    isActive: bool('is_active'),
    mailingAddress: {
      kind: 'embedded',
      nullWhen: (n) => `${n}.mailing_city IS NULL AND ${n}.mailing_subdivision_code IS NULL`,
    },
    virtualDevices: DEVICES_OF_NETWORK,
    vlans: {
      kind: 'list',
      table: 'vlans',
      join: (l, n) => `${l}.network_id = ${n}.id`,
      orderBy: (l) => `${l}.name, ${l}.vlan_id`,
    },
    ssids: {
      kind: 'list',
      table: 'ssids',
      join: (s, n) => `${s}.network_id = ${n}.id`,
      orderBy: (s) => `${s}.ssid`,
    },
  },
  MailingAddress: {
    city: text('mailing_city', true),
    subdivisionCode: text('mailing_subdivision_code', true),
  },
  VirtualDevice: {
    UUID: text('uuid'),
    label: text('label'),
    deviceType: text('device_type'),
    deviceModel: text('device_model'),
    isOnline: bool('is_online'),
    hardwareDevice: {
      kind: 'object',
      table: 'hardware_devices',
      join: (h, v) => `${h}.virtual_device_id = ${v}.id`,
    },
  },
  HardwareDevice: {
    serialNumber: text('serial_number'),
    deviceType: text('device_type'),
    deviceModel: text('device_model'),
    isConnectedToBackend: bool('is_connected_to_backend'),
  },
  NetworkClient: {
    macAddress: text('mac_address'),
    ip: text('ip', true),
    lastSeen: { kind: 'scalar', column: 'last_seen', type: 'datetime' },
  },
  VLAN: {
    UUID: text('uuid'),
    name: text('name'),
    vlanID: { kind: 'scalar', column: 'vlan_id', type: 'integer' },
    isEnabled: bool('is_enabled'),
  },
  SSID: {
    UUID: text('uuid'),
    ssid: text('ssid'),
    isEnabled: bool('is_enabled'),
  },
};

/**
 * Each root field: the row it starts from (looked up by its argument inside
 * the caller's company) and, for lists, the relation listed below that row.
 * Company scoping lives here, once, for every read.
 */
const ROOTS: Record<
  RootName | InternalRootName,
  { table: string; argType: ParamType; where: (t: string, arg: string, company: string) => string; list?: ListMapping }
> = {
    virtualDevice: { table: 'virtual_devices', argType: 'uuid', where: (t, a, c) => `${t}.uuid = ${a} AND ${t}.company_id = ${c}` },
    hardwareDevice: {
      table: 'hardware_devices',
      argType: 'text',
      where: (t, a, c) => `${t}.serial_number = ${a} AND ${t}.company_id = ${c}`,
    },
    companyBySlug: { table: 'companies', argType: 'text', where: (t, a, c) => `${t}.slug = ${a} AND ${t}.id = ${c}` },
    networksForCompany: {
      table: 'companies',
      argType: 'text',
      where: (t, a, c) => `${t}.slug = ${a} AND ${t}.id = ${c}`,
      list: NETWORKS_OF_COMPANY,
    },
    virtualDevicesForNetwork: {
      table: 'networks',
      argType: 'uuid',
      where: (t, a, c) => `${t}.uuid = ${a} AND ${t}.company_id = ${c}`,
      list: DEVICES_OF_NETWORK,
    },
    networkClients: {
      table: 'networks',
      argType: 'uuid',
      where: (t, a, c) => `${t}.uuid = ${a} AND ${t}.company_id = ${c}`,
      list: CONNECTED_CLIENTS_OF_NETWORK,
    },
    networkByUUID: { table: 'networks', argType: 'uuid', where: (t, a, c) => `${t}.uuid = ${a} AND ${t}.company_id = ${c}` },
    // VLANs and SSIDs belong to a company through their network
    vlanByUUID: {
      table: 'vlans',
      argType: 'uuid',
      where: (t, a, c) => `${t}.uuid = ${a} AND ${t}.network_id IN (SELECT id FROM networks WHERE company_id = ${c})`,
    },
    ssidByUUID: {
      table: 'ssids',
      argType: 'uuid',
      where: (t, a, c) => `${t}.uuid = ${a} AND ${t}.network_id IN (SELECT id FROM networks WHERE company_id = ${c})`,
    },
  };

/**
 * Builds SQL text for one dialect; aliases and parameters are numbered as it
 * goes. `reference` writes parameter n (1-based) into the text: a placeholder,
 * or a column of the batch form's parameter rows.
 */
class ReadCompiler {
  private aliasCount = 0;
  readonly slots: ParamSlot[] = [];

  constructor(
    private readonly dialect: SqlDialect,
    private readonly reference: (index: number) => string = (index) => dialect.placeholder(index),
  ) {}

  param(slot: ParamSlot): string {
    this.slots.push(slot);
    return this.reference(this.slots.length);
  }

  alias(): string {
    return `t${this.aliasCount++}`;
  }

  root(read: RootRead, index: number): string {
    const root = ROOTS[read.root];
    const t = this.alias();
    const where = root.where(t, this.param({ kind: 'arg', root: index }), this.param({ kind: 'company' }));
    if (root.list === undefined) {
      return `(SELECT ${this.object(read.selection, t)} FROM ${root.table} ${t} WHERE ${where})`;
    }
    return `(SELECT ${this.list(root.list, read.selection, t)} FROM ${root.table} ${t} WHERE ${where})`;
  }

  /** JSON object text of `selection` for the row aliased `t`. */
  object(selection: Selection, t: string): string {
    const model = READ_MODEL[selection.typeName];
    invariant(model !== undefined, 'read-model-type');
    const parts: string[] = [];
    let literal = '{';
    for (const field of selection.fields) {
      literal += `${literal === '{' ? '' : ','}"${field.key}":`;
      if (field.name === '__typename') {
        literal += `"${selection.typeName}"`;
        continue;
      }
      const mapping = model[field.name];
      invariant(mapping !== undefined, `read-model-field:${selection.typeName}.${field.name}`);
      parts.push(sqlLiteral(literal), this.field(mapping, field, t));
      literal = '';
    }
    parts.push(sqlLiteral(`${literal}}`));
    return parts.join(' || ');
  }

  private field(mapping: FieldMapping, field: SelectedField, t: string): string {
    switch (mapping.kind) {
      case 'scalar':
        return this.scalar(mapping.type, `${t}.${mapping.column}`, mapping.nullable === true);
      case 'embedded':
        invariant(field.selection !== undefined, 'read-embedded-selection');
        return `(CASE WHEN ${mapping.nullWhen(t)} THEN 'null' ELSE ${this.object(field.selection, t)} END)`;
      case 'object': {
        invariant(field.selection !== undefined, 'read-object-selection');
        const child = this.alias();
        return `coalesce((SELECT ${this.object(field.selection, child)} FROM ${mapping.table} ${child} WHERE ${mapping.join(child, t)}), 'null')`;
      }
      case 'list':
        invariant(field.selection !== undefined, 'read-list-selection');
        return this.list(mapping as ListMapping, field.selection, t);
    }
  }

  list(mapping: ListMapping, selection: Selection, parent: string): string {
    const child = this.alias();
    const array = this.dialect.jsonArray(
      this.object(selection, child),
      `${mapping.table} ${child} WHERE ${mapping.join(child, parent)}`,
      mapping.orderBy?.(child) ?? `${child}.id`,
    );
    return `coalesce(${array}, '[]')`;
  }

  private scalar(type: ScalarType, column: string, nullable: boolean): string {
    const d = this.dialect;
    const json =
      type === 'string'
        ? d.jsonString(column)
        : type === 'boolean'
          ? d.jsonBoolean(column)
          : type === 'integer'
            ? d.jsonInteger(column)
            : d.jsonDateTime(column);
    return nullable ? `coalesce(${json}, 'null')` : json;
  }
}

/** A SQL string literal; the text never holds a quote (keys are GraphQL names). */
function sqlLiteral(value: string): string {
  invariant(!value.includes("'"), 'read-literal-quote');
  return `'${value}'`;
}

/**
 * Compiles the root reads of one document into one statement. The first
 * column says whether the API key is still active, so revocation needs no
 * cache invalidation: it is read in the same statement as the data.
 */
export function compileRead(dialect: SqlDialect, reads: readonly RootRead[], withKeyCheck: boolean): CompiledRead {
  const compiler = new ReadCompiler(dialect);
  const text = `SELECT ${selectList(compiler, reads, withKeyCheck)}`;
  const { slots } = compiler;
  if (dialect.batchOf === undefined) return { text, slots };
  // the same select list, each parameter read from the row of one caller
  const batchCompiler = new ReadCompiler(dialect, (index) => `b.p${index}`);
  const batchColumns = selectList(batchCompiler, reads, withKeyCheck);
  const types = slots.map((slot): ParamType => (slot.kind === 'arg' ? ROOTS[(reads[slot.root] as RootRead).root].argType : 'bigint'));
  return { text, slots, batchText: dialect.batchOf(batchColumns, types) };
}

/** The columns of a compiled read: the key check as `k`, then root field i's JSON as `r<i>`. */
function selectList(compiler: ReadCompiler, reads: readonly RootRead[], withKeyCheck: boolean): string {
  const columns: string[] = [];
  if (withKeyCheck) {
    const key = compiler.param({ kind: 'key' });
    columns.push(`(SELECT CASE WHEN revoked_at IS NULL THEN 1 ELSE 0 END FROM api_keys WHERE id = ${key}) AS k`);
  } else {
    columns.push('1 AS k');
  }
  reads.forEach((read, index) => columns.push(`${compiler.root(read, index)} AS r${index}`));
  return columns.join(', ');
}

/** Runs a compiled read: one statement, whatever the size of the answer, cancelled at `deadline` if still running. */
export async function runRead(store: Store, compiled: CompiledRead, params: ReadParams, deadline?: number): Promise<ReadResult> {
  const values = compiled.slots.map((slot) =>
    slot.kind === 'key' ? params.keyId : slot.kind === 'company' ? params.companyId : params.args[slot.root],
  );
  const row: Row | undefined = await store.selectRow(compiled.text, values, { deadline, batchText: compiled.batchText });
  invariant(row !== undefined, 'read-no-row');
  const roots: (string | null)[] = [];
  for (let i = 0; ; i++) {
    const key = `r${i}`;
    if (!(key in row)) break;
    roots.push((row[key] as string | null) ?? null);
  }
  return { keyActive: Number(row.k) === 1, roots };
}
