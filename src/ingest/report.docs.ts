import { ReportSchema } from './report.protocol.js';
import type { SchemaNode } from './report.protocol.js';

// The field table of docs/reports.md, rendered from the protocol's schema:
// `npm run schema` writes it between the markers, and a test fails when the
// file is out of step (test/report-docs.test.ts).

/** The comments the table sits between in docs/reports.md. */
export const REPORT_FIELDS_MARKERS = {
  start: '<!-- report-fields: generated from src/ingest/report.protocol.ts by `npm run schema`; do not edit by hand -->',
  end: '<!-- /report-fields -->',
} as const;


/** The table: one row per field, in the protocol's order, nested fields as `interfaces[].portNumber`. */
export function renderReportFields(): string {
  const rows = fieldRows(ReportSchema as unknown as SchemaNode, '');
  return ['| field | type | meaning and rules |', '|---|---|---|', ...rows.map(([field, type, meaning]) => `| \`${field}\` | ${type} |${meaning === '' ? '' : ` ${meaning}`} |`)].join('\n');
}

/** `markdown` with the table between its markers replaced by the current one; throws when the markers are missing. */
export function replaceReportFields(markdown: string): string {
  const start = markdown.indexOf(REPORT_FIELDS_MARKERS.start);
  const end = markdown.indexOf(REPORT_FIELDS_MARKERS.end);
  if (start < 0 || end < start) throw new Error('report.docs: docs/reports.md has no report-fields markers');
  return `${markdown.slice(0, start + REPORT_FIELDS_MARKERS.start.length)}\n${renderReportFields()}\n${markdown.slice(end)}`;
}

function fieldRows(object: SchemaNode, prefix: string): [string, string, string][] {
  return Object.entries(object.properties ?? {}).flatMap(([name, field]) => {
    const required = object.required?.includes(name) ?? false;
    const path = `${prefix}${name}`;
    const inner = field.anyOf?.find((n) => n.type !== 'null') ?? field;
    const nullable = inner !== field;
    // null (or nothing) means the default where there is one
    const absent = field.default === undefined ? (nullable ? ', or null' : '') : `, default \`${JSON.stringify(field.default)}\``;
    const type = `${typeOf(inner, nullable)}${required ? ', required' : ''}${absent}`;
    const meaning = [field.description ?? inner.description, limitsOf(inner)].filter((s) => s !== undefined).join('; ');
    const row: [string, string, string] = [path, type, meaning];
    if (inner.type === 'array' && inner.items?.properties !== undefined) return [row, ...fieldRows(inner.items, `${path}[].`)];
    if (inner.type === 'object' && inner.properties !== undefined) return [row, ...fieldRows(inner, `${path}.`)];
    return [row];
  });
}

function typeOf(node: SchemaNode, nullable: boolean): string {
  if (node.enum !== undefined) return node.enum.map((v) => `\`${v}\``).join(', ');
  switch (node.type) {
    case 'string':
      if (node.title !== undefined) return node.maxLength === undefined ? node.title : `${node.title}, at most ${node.maxLength} characters`;
      return nullable ? `string of at most ${node.maxLength} characters` : `string of 1 to ${node.maxLength} characters`;
    case 'integer':
      return `whole number ${range(node)}`;
    case 'number':
      return `number ${range(node)}`;
    case 'boolean':
      return 'boolean';
    case 'array':
      return `list (at most ${count(node.maxItems ?? 0)})`;
    default:
      return node.title ?? 'object';
  }
}

function limitsOf(node: SchemaNode): string | undefined {
  if (node.maxBytes === undefined) return undefined;
  return `at most ${node.maxBytes / 1024} KiB as JSON and ${node.maxNesting} levels of nesting`;
}

function range(node: SchemaNode): string {
  if (node.maximum === undefined || node.maximum >= Number.MAX_SAFE_INTEGER) return `≥ ${node.minimum}`;
  return `${count(node.minimum ?? 0)} to ${count(node.maximum)}`;
}

const count = (n: number): string => (Math.abs(n) >= 100_000 ? n.toLocaleString('en-US') : String(n));
