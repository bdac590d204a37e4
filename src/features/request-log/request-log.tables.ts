/** The request log's table. */
export interface RequestLogTables {
  api_request_log: ApiRequestLogTable;
}

/** One request made with an API key (migration 0020; features/request-log); partitioned by day on PostgreSQL. */
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
}
