/**
 * netgraph's typed API client (`import { createClient, graphql } from 'netgraph/client'`):
 * documents typed from schema.graphql by gql.tada, results and errors as
 * values, waits for the limits instead of 429s, retries of safe requests,
 * and paging. Runs wherever `fetch` does: Node.js 20+ and browsers. docs/client.md.
 */
export { createClient, requireData } from './client.js';
export type { ClientOptions, Cost, EventLogVariables, NetgraphClient, RequestArgs, RequestOptions, Result, WaitEvent } from './client.js';
export { graphql } from './client.documents.js';
export type { Document, OperationInfo } from './client.documents.js';
export { ERROR_CODES, NetgraphNetworkError, NetgraphRequestError } from './client.errors.js';
export type { ErrorCode, ErrorExtensions, GraphQLErrorValue } from './client.errors.js';
export { EVENT_PAGE_LIMIT, changePages, cursorPages, eventLogPages, offsetPages } from './client.pages.js';
export type { ChangesData, EventLogData, OffsetPage, OffsetVariables, Pager } from './client.pages.js';
export type { RetryPolicy } from './client.retry.js';
export { readFragment } from 'gql.tada';
export type { FragmentOf, ResultOf, VariablesOf } from 'gql.tada';
