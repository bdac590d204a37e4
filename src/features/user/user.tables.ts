import type { Generated } from 'kysely';

/** The dashboard user feature's tables: users, their sessions and failed sign-ins. */
export interface UserTables {
  users: UserTable;
  user_sessions: UserSessionTable;
  sign_in_failures: SignInFailureTable;
}

export interface UserTable {
  id: Generated<number>;
  uuid: string;
  company_id: number;
  email: string;
  role: string;
  password_hash: string;
  created_at: string;
}

export interface UserSessionTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

export interface SignInFailureTable {
  id: Generated<number>;
  subject: string;
  failed_at: string;
}
