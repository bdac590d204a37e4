import { AppError } from '../../kernel/errors.js';
import type { GraphQLRequest } from '../../engine/execute.js';

/** The GraphQL request a parsed JSON body holds; BAD_REQUEST saying what is wrong with its shape. */
export function readRequestBody(body: unknown): GraphQLRequest {
  if (Array.isArray(body)) {
    throw new AppError('BAD_REQUEST', 'Batched requests (a JSON array) are not supported: send one operation per request.');
  }
  if (typeof body !== 'object' || body === null) {
    throw new AppError('BAD_REQUEST', 'The request body must be a JSON object with a "query" string.');
  }
  const { query, variables, operationName, extensions } = body as Record<string, unknown>;
  if (query === undefined || query === null) {
    throw new AppError('BAD_REQUEST', 'The request body has no "query": send the GraphQL document as a string.');
  }
  if (typeof query !== 'string') throw new AppError('BAD_REQUEST', '"query" must be a string holding the GraphQL document.');
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw new AppError('BAD_REQUEST', '"variables" must be a JSON object (or null).');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw new AppError('BAD_REQUEST', '"operationName" must be a string (or null).');
  }
  if (extensions !== undefined && extensions !== null && (typeof extensions !== 'object' || Array.isArray(extensions))) {
    throw new AppError('BAD_REQUEST', '"extensions" must be a JSON object (or null).');
  }
  return {
    query,
    variables: (variables as Record<string, unknown> | null | undefined) ?? null,
    operationName: (operationName as string | null | undefined) ?? null,
    extensions: (extensions as Record<string, unknown> | null | undefined) ?? null,
  };
}
