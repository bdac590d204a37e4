import type { GraphQLError } from 'graphql';
import type { ErrorCode } from '../kernel/errors.js';
import { stripSuggestions } from './document.js';

// What the query path (execute.ts) and the mutation path (mutate.ts) both put
// on the wire. It lives here so that neither path imports the other's module.

/** An error as it goes on the wire. */
export interface WireError {
  readonly message: string;
  readonly locations?: readonly { line: number; column: number }[];
  readonly path?: readonly (string | number)[];
  readonly extensions: { readonly code: ErrorCode; readonly [key: string]: unknown };
}

/** A request that ran, with its JSON body. */
export interface ExecutedOutcome {
  readonly kind: 'executed';
  readonly body: string;
  readonly operationName: string | null;
  /** True when a statement that ran also confirmed the API key is not revoked (every read; a mutation with a field). */
  readonly keyChecked: boolean;
  readonly statements: number;
  /**
   * A query's actual cost, from what its answer holds (graphql/actual-cost.ts):
   * at most its requested cost. Undefined (a mutation): the requested cost.
   */
  readonly actualCost?: number;
  /** The `extensions.code` of each error the body holds, in its order (the per-key request log); empty for none. */
  readonly errorCodes: readonly ErrorCode[];
}

/** The wire form of a GraphQL error, without "Did you mean" hints. */
export function toWireError(error: GraphQLError, code: ErrorCode): WireError {
  // key order as the GraphQL spec shows it: message, locations, path, extensions
  return {
    message: stripSuggestions(error.message),
    ...(error.locations && error.locations.length > 0 ? { locations: error.locations } : {}),
    ...(error.path ? { path: error.path } : {}),
    extensions: { code, ...extensionsOf(error) },
  };
}

function extensionsOf(error: GraphQLError): Record<string, unknown> {
  const { code: _code, ...rest } = error.extensions ?? {};
  return rest;
}
