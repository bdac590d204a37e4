import type { SqlContext } from '../../db/store.js';

/** A user as stored, with its company. */
export interface UserRow {
  readonly id: number;
  readonly uuid: string;
  readonly companyId: number;
  readonly companySlug: string;
  readonly companyName: string;
  readonly email: string;
  readonly role: string;
  readonly passwordHash: string;
  readonly createdAt: string;
}

/** A session as stored, with its user. */
export interface SessionRow {
  readonly id: number;
  readonly expiresAt: string;
  readonly user: UserRow;
}

/** SQL of dashboard users, their sessions and failed sign-ins. */
export function createUserRepository(context: SqlContext) {
  const { db } = context;
  const selectUsers = () =>
    db
      .selectFrom('users as u')
      .innerJoin('companies as c', 'c.id', 'u.company_id')
      .select([
        'u.id',
        'u.uuid',
        'u.company_id as companyId',
        'c.slug as companySlug',
        'c.name as companyName',
        'u.email',
        'u.role',
        'u.password_hash as passwordHash',
        'u.created_at as createdAt',
      ]);

  return {
    async insertUser(user: { uuid: string; companyId: number; email: string; role: string; passwordHash: string; createdAt: string }): Promise<void> {
      await db
        .insertInto('users')
        .values({
          uuid: user.uuid,
          company_id: user.companyId,
          email: user.email,
          role: user.role,
          password_hash: user.passwordHash,
          created_at: user.createdAt,
        })
        .execute();
    },

    async findUserByEmail(email: string): Promise<UserRow | undefined> {
      return selectUsers().where('u.email', '=', email).executeTakeFirst();
    },

    async listUsersByCompany(companyId: number): Promise<UserRow[]> {
      return selectUsers().where('u.company_id', '=', companyId).orderBy('u.email').execute();
    },

    async insertSession(session: { tokenHash: string; userId: number; createdAt: string; expiresAt: string }): Promise<void> {
      await db
        .insertInto('user_sessions')
        .values({
          token_hash: session.tokenHash,
          user_id: session.userId,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .execute();
    },

    /** The session with this token hash and its user, expired or not. */
    async findSession(tokenHash: string): Promise<SessionRow | undefined> {
      const row = await selectUsers()
        .innerJoin('user_sessions as s', 's.user_id', 'u.id')
        .select(['s.id as sessionId', 's.expires_at as expiresAt'])
        .where('s.token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const { sessionId, expiresAt, ...user } = row;
      return { id: sessionId, expiresAt, user };
    },

    async updatePasswordHash(userId: number, passwordHash: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    },

    /** Ends every session of the user, on every process. */
    async deleteSessionsOfUser(userId: number): Promise<void> {
      await db.deleteFrom('user_sessions').where('user_id', '=', userId).execute();
    },

    async deleteSession(tokenHash: string): Promise<void> {
      await db.deleteFrom('user_sessions').where('token_hash', '=', tokenHash).execute();
    },

    /** Deletes the user's sessions that expired at or before `at`. */
    async deleteExpiredSessions(userId: number, at: string): Promise<void> {
      await db.deleteFrom('user_sessions').where('user_id', '=', userId).where('expires_at', '<=', at).execute();
    },

    async insertFailures(subjects: readonly string[], at: string): Promise<void> {
      if (subjects.length === 0) return;
      await db
        .insertInto('sign_in_failures')
        .values(subjects.map((subject) => ({ subject, failed_at: at })))
        .execute();
    },

    /** The subject's newest failures after `since`, newest first, at most `limit`. */
    async recentFailures(subject: string, since: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('sign_in_failures')
        .select('failed_at')
        .where('subject', '=', subject)
        .where('failed_at', '>', since)
        .orderBy('failed_at', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => row.failed_at);
    },

    async deleteFailures(subject: string): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('subject', '=', subject).execute();
    },

    /** Deletes failures older than `before` that no rule looks at any more. */
    async pruneFailures(before: string): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('failed_at', '<', before).execute();
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
