/** The scopes an API key is created with: what its caller may do. */
export const KEY_SCOPES = ['read', 'read_write', 'ingest'] as const;
/** One of KEY_SCOPES. */
export type KeyScope = (typeof KEY_SCOPES)[number];

/** The kinds of actor the audit log knows (the table's check constraint has the same list). */
export const ACTOR_TYPES = ['api_key', 'user', 'cli'] as const;
/** Who made a change: an API key, a dashboard user, or the command line. */
export type ActorType = (typeof ACTOR_TYPES)[number];

/** Who made a change, as the audit log records it. Never a key value or hash. */
export interface Actor {
  readonly type: ActorType;
  /** The API key's UUID or the dashboard user's id; null for the CLI. */
  readonly id: string | null;
  /** The key's label or the user's name, as it was at the time. */
  readonly label: string;
}

/** Who is calling, and for which company. Every read and write is scoped by it. */
export interface Caller {
  readonly companyId: number;
  readonly companySlug: string;
  /** The API key's row id; null for a dashboard user. */
  readonly keyId: number | null;
  readonly keyUuid: string | null;
  readonly label: string;
  readonly scope: KeyScope;
  /**
   * Who acts, for the audit log. Absent for an API key, which is its own
   * actor; a dashboard sets its signed-in user here, with keyId null.
   */
  readonly actor?: Actor;
}
