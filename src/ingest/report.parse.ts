import { IsCodec } from 'typebox';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { isIpAddress } from '../kernel/formats.js';
import { jsonValueNesting } from '../kernel/json-input.js';
import { ReportSchema, SECTION_IDENTITY, STRING_KIND } from './report.protocol.js';
import { NETGRAPH_EVENT_TYPES } from './report.limits.js';
import type { SchemaNode } from './report.protocol.js';
import type { DeviceReport } from './report.protocol.js';

/** Why one report of a batch was refused; `path` names the offending field, e.g. `reports[3].clients[0].macAddress`. */
export interface Rejection {
  readonly index: number;
  readonly code: 'BAD_USER_INPUT' | 'UNAUTHORIZED';
  readonly path: string;
  readonly message: string;
}

/** The times a report's observedAt values must fall between, in ms since the epoch. */
export interface TimeWindow {
  readonly earliest: number;
  readonly latest: number;
}

/** One problem of a report: the offending field's path and what to fix. */
interface Problem {
  readonly path: string;
  readonly message: string;
}


type Json = Record<string, unknown>;
type Decoder = (value: unknown) => unknown;

const validator = Compile(ReportSchema);
const ROOT = ReportSchema as unknown as SchemaNode;
const decoders = new WeakMap<object, Decoder | null>();
const patterns = new Map<string, RegExp>();
const RESERVED: readonly string[] = NETGRAPH_EVENT_TYPES;
const DETAILS = detailsNode();
const MAX_NESTING = DETAILS.maxNesting ?? 0;
const MAX_BYTES = DETAILS.maxBytes ?? 0;
const decodeReport: Decoder = decoderOf(ReportSchema) ?? ((value) => value);

/**
 * Checks one report of a batch: a DeviceReport with MAC addresses and BSSIDs
 * lowercased and times canonical, or the Rejection of its first problem (in
 * the protocol's field order). Fields the protocol does not know are ignored
 * (senders may be newer).
 *
 * A valid report takes the fast way: the compiled JSON Schema check, the
 * decode, then the rules JSON Schema cannot say (the time window, repeated
 * elements, reserved event types, `details` nesting and size). Any other
 * report is walked field by field for its first problem and its message.
 */
export function parseReport(value: unknown, index: number, window: TimeWindow): DeviceReport | Rejection {
  const report = validator.Check(value) && detailsFit(value) ? decode(value) : undefined;
  if (report !== undefined && rulesHold(report, window)) {
    const problem = memoryProblem(report, `reports[${index}]`) ?? utilizationProblem(report, `reports[${index}]`);
    return problem === undefined ? report : { index, code: 'BAD_USER_INPUT', ...problem };
  }
  const problem = problemOf(ROOT, value, `reports[${index}]`, window) ?? schemaProblem(value, `reports[${index}]`);
  return { index, code: 'BAD_USER_INPUT', ...problem };
}

/** True when parseReport refused the report. */
export function isRejection(result: DeviceReport | Rejection): result is Rejection {
  return 'code' in result;
}

// ---------------------------------------------------------------------------
// The fast way, on a report the schema accepted.

/** The report decoded, or undefined for a time Date.parse refuses (its canonical form throws a RangeError). */
function decode(value: unknown): DeviceReport | undefined {
  try {
    return decodeReport(value) as DeviceReport;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** Every event's `details` nests no deeper than allowed; measured before decoding stringifies it, which recurses. */
function detailsFit(report: { readonly events?: readonly { readonly details?: unknown }[] }): boolean {
  return report.events?.every((e) => e.details == null || jsonValueNesting(e.details, MAX_NESTING) <= MAX_NESTING) ?? true;
}

/** The rules JSON Schema cannot say: times inside the window, each element once, no reserved event type, `details` small enough. */
function rulesHold(report: DeviceReport, window: TimeWindow): boolean {
  const [earliest, latest] = windowText(window);
  // canonical times order as text
  const inWindow = (time: string) => time >= earliest && time <= latest;
  return (
    inWindow(report.observedAt) &&
    (report.uplinkSamples?.every((s) => inWindow(s.observedAt)) ?? true) &&
    (report.events?.every((e) => inWindow(e.observedAt) && !RESERVED.includes(e.type) && (e.details === null || Buffer.byteLength(e.details) <= MAX_BYTES)) ?? true) &&
    (report.idsDetections?.every((d) => inWindow(d.observedAt) && isIpAddress(d.srcIP) && isIpAddress(d.dstIP)) ?? true) &&
    (report.clientConnectionEvents?.every((c) => c.events.every((e) => inWindow(e.observedAt))) ?? true) &&
    unique(report.interfaces, SECTION_IDENTITY.interfaces.key) &&
    unique(report.radios, SECTION_IDENTITY.radios.key) &&
    unique(report.radioChannels, SECTION_IDENTITY.radioChannels.key) &&
    unique(report.clients, SECTION_IDENTITY.clients.key) &&
    unique(report.clientConnectionEvents, SECTION_IDENTITY.clientConnectionEvents.key) &&
    unique(report.macTable, SECTION_IDENTITY.macTable.key) &&
    unique(report.outlets, SECTION_IDENTITY.outlets.key) &&
    unique(report.foreignBSSIDs, SECTION_IDENTITY.foreignBSSIDs.key)
  );
}

/** Memory in use above the memory installed: the one rule across two fields. */
function memoryProblem(report: DeviceReport, at: string): Problem | undefined {
  const { memoryUsedBytes: used, memoryTotalBytes: total } = report;
  if (typeof used !== 'number' || typeof total !== 'number' || used <= total) return undefined;
  return { path: `${at}.memoryUsedBytes`, message: `is larger than memoryTotalBytes (${total}): send the memory in use and the memory installed, both in bytes` };
}

/** A radio whose receive and transmit time add up to more than its busy time: the rule across three fields. */
function utilizationProblem(report: DeviceReport, at: string): Problem | undefined {
  for (const [i, radio] of (report.radioChannels ?? []).entries()) {
    const { totalUtilization: total, rxUtilization: rx, txUtilization: tx } = radio;
    if (total === null || rx === null || tx === null || rx + tx <= total + 1e-9) continue;
    return {
      path: `${at}.radioChannels[${i}].totalUtilization`,
      message: `is ${total}, less than rxUtilization + txUtilization (${rx + tx}): the channel is busy at least while the radio receives or transmits; send percentages of the same interval`,
    };
  }
  return undefined;
}

let lastWindow: { readonly window: TimeWindow; readonly text: readonly [string, string] } | undefined;

/** The window's ends as canonical times (one window serves a whole batch). */
function windowText(window: TimeWindow): readonly [string, string] {
  if (lastWindow?.window !== window) lastWindow = { window, text: [new Date(window.earliest).toISOString(), new Date(window.latest).toISOString()] };
  return lastWindow.text;
}

function unique<T>(elements: readonly T[] | undefined, key: (element: T) => string): boolean {
  if (elements === undefined || elements.length < 2) return true;
  const seen = new Set<string>();
  for (const element of elements) {
    const k = key(element);
    if (seen.has(k)) return false;
    seen.add(k);
  }
  return true;
}

function detailsNode(): SchemaNode {
  const events = ROOT.properties?.events?.items;
  const details = events?.properties?.details?.anyOf?.find((n) => n.type === 'object');
  if (details === undefined) throw new Error('report.parse: the protocol has no events[].details');
  return details;
}

// ---------------------------------------------------------------------------
// The slow way: the first problem, field by field in the schema's order, each
// message worded from the keywords of the field's node.

/** `name`: the field's name (a section's identity is looked up by it); `nullable`: the node is X of `X | null`. */
function problemOf(schema: SchemaNode, value: unknown, at: string, window: TimeWindow, name?: string, nullable = false): Problem | undefined {
  const inner = schema.anyOf?.find((n) => n.type !== 'null');
  if (inner !== undefined) return value === null ? undefined : problemOf(inner, value, at, window, name, true);
  const fail = (message: string): Problem => ({ path: at, message });
  if (schema.enum !== undefined) return (typeof value === 'string' || typeof value === 'number') && schema.enum.includes(value) ? undefined : fail(`must be one of ${schema.enum.join(', ')}`);
  switch (schema.type) {
    case 'object':
      return objectProblem(schema, value, at, window, nullable);
    case 'array':
      return listProblem(schema, value, at, window, name);
    case 'integer':
      return Number.isSafeInteger(value) && inRange(schema, value as number) ? undefined : fail(`must be a whole number from ${schema.minimum} to ${schema.maximum}`);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && inRange(schema, value)
        ? undefined
        : fail(`must be a number from ${schema.minimum} to ${schema.maximum}${nullable ? ', or null' : ''}`);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : fail('must be true or false');
    case 'string':
      return stringProblem(schema, value, at, window, nullable);
    default:
      throw new Error(`report.parse: no rule for the schema node ${JSON.stringify(schema)}`);
  }
}

function objectProblem(schema: SchemaNode, value: unknown, at: string, window: TimeWindow, nullable: boolean): Problem | undefined {
  const free = schema.properties === undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { path: at, message: free && nullable ? 'must be a JSON object (or null)' : 'must be a JSON object' };
  }
  if (free) return freeFormProblem(schema, value, at);
  const object = value as Json;
  for (const [name, node] of Object.entries(schema.properties ?? {})) {
    const field = object[name];
    if (field === undefined && !schema.required?.includes(name)) continue;
    const problem = problemOf(node, field, `${at}.${name}`, window, name);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function freeFormProblem(schema: SchemaNode, value: object, at: string): Problem | undefined {
  const maxNesting = schema.maxNesting ?? 0;
  if (jsonValueNesting(value, maxNesting) > maxNesting) return { path: at, message: `nests arrays and objects deeper than ${maxNesting} levels` };
  const maxBytes = schema.maxBytes ?? 0;
  if (Buffer.byteLength(JSON.stringify(value)) > maxBytes) return { path: at, message: `is larger than ${maxBytes} bytes as JSON` };
  return undefined;
}

/** A list's problem: its type and length, then each element's and, in a section, a repeated element (at its second). */
function listProblem(schema: SchemaNode, value: unknown, at: string, window: TimeWindow, section: string | undefined): Problem | undefined {
  if (!Array.isArray(value)) return { path: at, message: 'must be a list (or left out)' };
  const max = schema.maxItems ?? Number.POSITIVE_INFINITY;
  if (value.length > max) return { path: at, message: `holds ${value.length} entries; at most ${max} are allowed` };
  const items = schema.items as SchemaNode;
  const identity = section !== undefined && section in SECTION_IDENTITY ? SECTION_IDENTITY[section as keyof typeof SECTION_IDENTITY] : undefined;
  const seen = new Set<string>();
  for (const [i, element] of value.entries()) {
    const problem = problemOf(items, element, `${at}[${i}]`, window);
    if (problem !== undefined) return problem;
    if (identity === undefined) continue;
    const key = (identity.key as (decoded: unknown) => string)(decoderOf(items as unknown as TSchema)?.(element) ?? element);
    if (seen.has(key)) return { path: `${at}[${i}].${identity.field}`, message: `repeats ${key}: each may appear once per report` };
    seen.add(key);
  }
  return undefined;
}

/** Text (a node with maxLength) first as text, required and not blank unless nullable; then its pattern and its kind's rules. */
function stringProblem(schema: SchemaNode, value: unknown, at: string, window: TimeWindow, nullable: boolean): Problem | undefined {
  const fail = (message: string): Problem => ({ path: at, message });
  const message = schema.errorMessage ?? 'is not valid';
  if (schema.maxLength !== undefined) {
    if (typeof value !== 'string' || (!nullable && value.trim() === '')) return fail(nullable ? 'must be a string or null' : 'is required: a non-empty string');
    if (value.length > schema.maxLength) return fail(`is longer than ${schema.maxLength} characters`);
    // neither store keeps a NUL in text alike (PostgreSQL refuses it)
    if (value.includes('\u0000')) return fail('must not contain a NUL character');
  }
  if (typeof value !== 'string' || (schema.pattern !== undefined && !pattern(schema.pattern).test(value))) return fail(message);
  if (schema.reserved?.includes(value)) return fail(`${value} is recorded by netgraph itself from the reports' times; a device may not report it`);
  if (schema.title === STRING_KIND.time) return timeProblem(value, at, window, message);
  if (schema.title === STRING_KIND.ip && !isIpAddress(value)) return fail(message);
  return undefined;
}

/** An RFC 3339 time must parse and lie inside the window. */
function timeProblem(value: string, at: string, window: TimeWindow, message: string): Problem | undefined {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return { path: at, message };
  if (ms > window.latest) return { path: at, message: 'is more than 5 minutes in the future: check the sender\'s clock' };
  if (ms < window.earliest) return { path: at, message: 'is older than the raw telemetry retention (TELEMETRY_RAW_RETENTION_HOURS); such reports are not kept' };
  return undefined;
}

const inRange = (schema: SchemaNode, value: number) => value >= (schema.minimum ?? Number.NEGATIVE_INFINITY) && value <= (schema.maximum ?? Number.POSITIVE_INFINITY);

function pattern(source: string): RegExp {
  let compiled = patterns.get(source);
  if (compiled === undefined) patterns.set(source, (compiled = new RegExp(source, 'u')));
  return compiled;
}

/** The compiled check's first error, for a report the walk above found nothing wrong with (a gap between the two). */
function schemaProblem(value: unknown, at: string): Problem {
  const [first] = validator.Errors(value);
  if (first === undefined) throw new Error('report.parse: a report the schema accepts broke a rule the walk does not know');
  const path = first.instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('');
  return { path: `${at}${path}`, message: first.message };
}

// ---------------------------------------------------------------------------
// Decoding: each node's Type.Decode callback, children first, as TypeBox
// orders them; built once per node, skipping subtrees without callbacks.

function decoderOf(schema: TSchema): Decoder | undefined {
  let decoder = decoders.get(schema);
  if (decoder === undefined) decoders.set(schema, (decoder = buildDecoder(schema) ?? null));
  return decoder ?? undefined;
}

function buildDecoder(schema: TSchema): Decoder | undefined {
  const node = schema as unknown as SchemaNode;
  const own = IsCodec(schema) ? (schema['~codec'].decode as Decoder) : undefined;
  let children: Decoder | undefined;
  if (node.type === 'object' && node.properties !== undefined) {
    const fields = Object.entries(node.properties).flatMap(([name, child]) => {
      const decode = decoderOf(child as unknown as TSchema);
      return decode === undefined ? [] : [[name, decode] as const];
    });
    if (fields.length > 0) {
      children = (value) => {
        const copy: Json = { ...(value as Json) };
        for (const [name, decode] of fields) if (copy[name] !== undefined) copy[name] = decode(copy[name]);
        return copy;
      };
    }
  } else if (node.type === 'array' && node.items !== undefined) {
    const item = decoderOf(node.items as unknown as TSchema);
    if (item !== undefined) children = (value) => (value as unknown[]).map(item);
  } else if (node.anyOf !== undefined) {
    const variants = node.anyOf.filter((n) => n.type !== 'null').map((n) => decoderOf(n as unknown as TSchema));
    if (variants.length > 1 && variants.some((d) => d !== undefined)) throw new Error('report.parse: a decode callback inside a union other than X | null');
    const variant = variants[0];
    if (variant !== undefined) children = (value) => (value === null ? null : variant(value));
  }
  if (own === undefined) return children;
  if (children === undefined) return own;
  const decodeChildren = children;
  return (value) => own(decodeChildren(value));
}
