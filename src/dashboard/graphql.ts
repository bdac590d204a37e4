import { initGraphQLTada } from 'gql.tada';
import type { introspection } from '../../graphql-env.js';

/**
 * `graphql()` for the dashboard's documents: typed against schema.graphql
 * (its introspection, graphql-env.d.ts at the root, which `npm run schema`
 * regenerates and the client shares), so a document's result and variables types come from the
 * schema, and a document the schema does not allow fails type checking.
 * The custom scalars arrive as JSON strings. Fragments are not masked: a
 * document's result includes the fields of the fragments it spreads.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  disableMasking: true;
  scalars: { UUID: string; DateTime: string; MacAddress: string; IP: string };
}>();

export type { ResultOf, VariablesOf, TadaDocumentNode } from 'gql.tada';
