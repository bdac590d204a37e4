/** The request log's table and view. */
export interface RequestLogTables {
  api_request_log_sets: ApiRequestLogSetTable;
  api_request_log: ApiRequestLogTable;
}

/**
 * The requests of one key recorded in one flush, within one UTC day
 * (migrations 0041 and 0042; features/request-log): `requests` is a JSON
 * array with one array per request, `shapes` the distinct fields its
 * requests repeat (createRequestSets of the repository; NULL in the rows of
 * 0041's layout); partitioned by day on first_at on PostgreSQL.
 */
export interface ApiRequestLogSetTable {
  api_key_id: number;
  first_at: string;
  last_at: string;
  requests: string;
  shapes: string | null;
}

/**
 * One request made with an API key: a row of the view that unnests
 * api_request_log_sets (migration 0041), with its set's `set_last_at`.
 */
export interface ApiRequestLogTable {
  requested_at: string;
  api_key_id: number;
  request_id: string;
  method: string;
  path: string;
  operation_name: string | null;
  root_fields: string | null;
  status: number;
  error_codes: string | null;
  cost: number | null;
  duration_ms: number;
  statements: number;
  client_address: string | null;
  user_agent: string | null;
  set_last_at: string;
}
