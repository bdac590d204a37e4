import { astFromValue, getNamedType, isEnumType, isInputObjectType, isObjectType, isScalarType, isSpecifiedScalarType, print } from 'graphql';
import type { GraphQLField, GraphQLInputField, GraphQLNamedType, GraphQLSchema } from 'graphql';

/**
 * Renders docs/schema.md from the schema's own descriptions, so the
 * human-readable reference cannot drift from what is served (a test compares).
 */
export function renderSchemaReference(schema: GraphQLSchema): string {
  const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__') && !isSpecifiedScalarType(t));
  const roots = [schema.getQueryType(), schema.getMutationType()].filter((t) => t !== null && t !== undefined);
  const objects = types.filter((t) => isObjectType(t) && !roots.includes(t)).sort(byName);
  const inputs = types.filter(isInputObjectType).sort(byName);
  const enums = types.filter(isEnumType).sort(byName);
  const scalars = types.filter(isScalarType).sort(byName);
  const lines: string[] = [
    '# Schema reference',
    '',
    '<!-- Generated from src/engine/schema.ts by `npm run schema`; a test fails when this file is stale. -->',
    '',
    'netgraph serves one GraphQL endpoint, `POST /api/v1/graphql`. Introspection is disabled; this page and',
    '[`schema.graphql`](../schema.graphql) (also at `GET /api/v1/schema.graphql`) are the reference.',
    'Errors and their codes: [errors.md](errors.md). What the metrics, port totals and event log answer, exactly (windows,',
    'buckets, averages, reboots, event names): [metrics.md](metrics.md). What the change feed (`changes`) lists, its order',
    'and its cursors, with a complete sync: [changes.md](changes.md).',
    '',
  ];
  for (const root of roots) {
    lines.push(`## ${root.name}`, '', description(root), '');
    for (const field of Object.values(root.getFields())) lines.push(...renderRootField(field));
  }
  lines.push('## Types', '');
  for (const type of objects) {
    if (!isObjectType(type)) continue;
    lines.push(`### ${type.name}`, '', description(type), '', '| field | type | notes |', '|---|---|---|');
    for (const field of Object.values(type.getFields())) {
      lines.push(`| \`${field.name}\` | ${typeLink(field.type.toString())} | ${oneLine(field.description ?? '')} |`);
    }
    lines.push('');
  }
  if (inputs.length > 0) lines.push('## Inputs', '');
  for (const type of inputs) {
    if (!isInputObjectType(type)) continue;
    lines.push(`### ${type.name}`, '', description(type), '', '| field | type | default | notes |', '|---|---|---|---|');
    for (const field of Object.values(type.getFields())) {
      lines.push(`| \`${field.name}\` | ${typeLink(field.type.toString())} | ${defaultOf(field)} | ${oneLine(field.description ?? '')} |`);
    }
    lines.push('');
  }
  lines.push('## Enums', '');
  for (const type of enums) {
    if (!isEnumType(type)) continue;
    lines.push(`### ${type.name}`, '', description(type), '', type.getValues().map((v) => `\`${v.name}\``).join(', '), '');
  }
  lines.push('## Scalars', '');
  for (const type of scalars) lines.push(`### ${type.name}`, '', description(type), '');
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

function renderRootField(field: GraphQLField<unknown, unknown>): string[] {
  const args = field.args.map((a) => `${a.name}: ${a.type.toString()}`).join(', ');
  const lines = [`### \`${field.name}(${args}): ${field.type.toString()}\``, '', oneLine(field.description ?? ''), ''];
  if (field.args.length > 0) {
    lines.push('| argument | type | notes |', '|---|---|---|');
    for (const arg of field.args) lines.push(`| \`${arg.name}\` | ${typeLink(arg.type.toString())} | ${oneLine(arg.description ?? '')} |`);
    lines.push('');
  }
  lines.push(`Returns ${typeLink(field.type.toString())}.`, '');
  return lines;
}

/** The default value of an input field as GraphQL text, or empty when it has none. */
function defaultOf(field: GraphQLInputField): string {
  if (field.defaultValue === undefined) return '';
  const ast = astFromValue(field.defaultValue, field.type);
  return ast ? `\`${print(ast)}\`` : '';
}

function typeLink(type: string): string {
  const named = type.replace(/[[\]!]/g, '');
  const builtin = ['String', 'Int', 'Boolean', 'Float', 'ID'].includes(named);
  return builtin ? `\`${type}\`` : `[\`${type}\`](#${named.toLowerCase()})`;
}

function description(type: GraphQLNamedType): string {
  return (getNamedType(type).description ?? '').trim();
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();
}

function byName(a: GraphQLNamedType, b: GraphQLNamedType): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
