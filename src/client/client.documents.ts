import { initGraphQLTada } from 'gql.tada';
import type { TadaDocumentNode } from 'gql.tada';
// the schema's types, generated from schema.graphql by `npm run schema` (gql.tada generate-output); the same
// relative path reaches it from src/client/ and from the compiled dist/client/, so the shipped types find it
import type { introspection } from '../../graphql-env.js';

const tada = initGraphQLTada<{
  introspection: introspection;
  // the schema's custom scalars travel as strings (docs/schema.md gives each one's format)
  scalars: { UUID: string; DateTime: string; MacAddress: string; IP: string };
}>();

/** A typed document: what `graphql()` returns, and what a client request takes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any result and variables, as gql.tada's own default
export type Document<Result = any, Variables = any> = TadaDocumentNode<Result, Variables, unknown>;

/** The text each document was made from, with its fragments' text, by document. */
const TEXTS = new WeakMap<object, string>();

/**
 * Makes a typed GraphQL document of netgraph's schema (gql.tada): its result
 * and variables types are inferred from the text, so nobody retypes a result.
 * Fragments made with this function may be passed as the second argument.
 */
export const graphql: typeof tada = Object.assign(
  (source: string, fragments?: readonly Document[]) => {
    const document = tada(source, fragments as never);
    TEXTS.set(document, [source, ...fragmentTexts(fragments ?? [], new Set())].join('\n'));
    return document;
  },
  { scalar: tada.scalar, persisted: tada.persisted },
) as typeof tada;

/** The texts of fragments and of the fragments they use, each once (two fragments may share a third). */
function fragmentTexts(fragments: readonly object[], seen: Set<object>): string[] {
  const texts: string[] = [];
  for (const fragment of fragments) {
    if (seen.has(fragment)) continue;
    seen.add(fragment);
    const text = TEXTS.get(fragment);
    if (text !== undefined) texts.push(text);
  }
  return dedupeDefinitions(texts);
}

/**
 * A fragment's text holds the fragments it uses, so two fragments that share
 * one both hold it: keep each `fragment Name` definition once.
 */
function dedupeDefinitions(texts: string[]): string[] {
  const names = new Set<string>();
  return texts.flatMap((text) =>
    text.split(/(?=^\s*fragment\s)/m).filter((part) => {
      const name = /^\s*fragment\s+(\w+)/.exec(part)?.[1];
      if (name === undefined) return true;
      if (names.has(name)) return false;
      names.add(name);
      return true;
    }),
  );
}

/** The kind and name of a document's operation (the one named `operationName`, or its only one). */
export interface OperationInfo {
  readonly kind: 'query' | 'mutation' | 'subscription';
  readonly name: string | undefined;
  /** The names of the variables it declares. */
  readonly variables: readonly string[];
}

interface DefinitionLike {
  readonly kind: string;
  readonly operation?: OperationInfo['kind'];
  readonly name?: { readonly value: string };
  readonly variableDefinitions?: readonly { readonly variable: { readonly name: { readonly value: string } } }[];
}

/** Reads a document's operation; throws when it has none, or several and no `operationName` picks one. */
export function readOperation(document: Document, operationName?: string): OperationInfo {
  const operations = (document.definitions as readonly DefinitionLike[]).filter((d) => d.kind === 'OperationDefinition');
  const operation = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === operationName);
  if (operation?.operation === undefined) {
    throw new TypeError(
      operationName === undefined ? `netgraph client: the document has ${operations.length} operations; pass operationName to pick one.` : `netgraph client: the document has no operation named "${operationName}".`,
    );
  }
  return {
    kind: operation.operation,
    name: operation.name?.value,
    variables: (operation.variableDefinitions ?? []).map((v) => v.variable.name.value),
  };
}

/** The text to send for a document made with `graphql()`, or parsed by graphql-js (which keeps its source). */
export function documentText(document: Document): string {
  const text = TEXTS.get(document) ?? (document.loc as { source?: { body?: string } } | undefined)?.source?.body;
  if (text === undefined) throw new TypeError('netgraph client: make documents with graphql() from netgraph/client; this one has no text to send.');
  return text;
}
