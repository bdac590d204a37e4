import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import type { Actor, Caller } from '../../kernel/caller.js';
import { CLI_ACTOR, buildChange } from '../../platform/audit/audit.service.js';
import type { AuditService } from '../../platform/audit/audit.service.js';
import type { CompanyService } from '../company/company.service.js';
import { unique } from '../../platform/write/write.rules.js';
import { ACCOUNT_LOCKOUT, ADDRESS_LOCKOUT, accountSubject, addressSubject, lockedForMs } from './user.lockout.js';
import type { LockoutPolicy } from './user.lockout.js';
import { MAX_PASSWORD_LENGTH, PASSWORD_PARAMS, generatePassword, hashPassword, passwordProblem, unusableHash, verifyPassword } from './user.password.js';
import type { PasswordParams } from './user.password.js';
import { createUserRepository } from './user.repository.js';
import type { UserRow } from './user.repository.js';
import { csrfTokenFor, generateSessionToken, hashSessionToken, isWellFormedSessionToken } from './user.session.js';

export const USER_ROLES = ['admin', 'member'] as const;
/** `admin` manages API keys; `member` reads. */
export type UserRole = (typeof USER_ROLES)[number];

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Sessions last this long from sign-in unless configured otherwise. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60_000;

/** A dashboard user as shown: never the password hash. */
export interface UserInfo {
  readonly id: string;
  readonly email: string;
  readonly role: UserRole;
  readonly company: string;
  readonly companyName: string;
  readonly createdAt: string;
}

/** The user behind a session, with the company id every read is scoped by. */
export interface SessionUser extends UserInfo {
  readonly companyId: number;
}

/** A live session: its user, its expiry and the CSRF token its forms carry. */
export interface ActiveSession {
  readonly user: SessionUser;
  readonly expiresAt: string;
  readonly csrfToken: string;
}

/** What a successful sign-in returns; `token` goes into the session cookie and nowhere else. */
export interface SignedIn extends ActiveSession {
  readonly token: string;
}

/** Options of the user service; tests inject the clock and cheaper password hashing. */
export interface UserServiceOptions {
  readonly now?: () => Date;
  readonly sessionTtlMs?: number;
  readonly passwordParams?: PasswordParams;
}

/**
 * Dashboard users: creation with scrypt-hashed passwords, sign-in with
 * per-account and per-address lockout (kept in the store, so it holds across
 * processes), and sessions that expire. Session tokens are stored as hashes.
 */
export function createUserService(store: Store, companies: CompanyService, audit: AuditService, options: UserServiceOptions = {}) {
  const repository = createUserRepository(store);
  const now = options.now ?? (() => new Date());
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const passwordParams = options.passwordParams ?? PASSWORD_PARAMS;
  const dummyHash = unusableHash(passwordParams);

  async function retryAfterMs(subject: string, policy: LockoutPolicy, at: Date): Promise<number> {
    const since = new Date(at.getTime() - policy.windowMs).toISOString();
    const failures = await repository.recentFailures(subject, since, policy.maxFailures);
    return lockedForMs(failures.map((f) => Date.parse(f)), at.getTime(), policy);
  }

  async function checkNotLocked(subjects: { account: string; address: string }, at: Date): Promise<void> {
    const wait = Math.max(
      await retryAfterMs(subjects.account, ACCOUNT_LOCKOUT, at),
      await retryAfterMs(subjects.address, ADDRESS_LOCKOUT, at),
    );
    if (wait <= 0) return;
    const minutes = Math.ceil(wait / 60_000);
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      { retryAfterSeconds: Math.ceil(wait / 1000) },
    );
  }

  async function startSession(user: UserRow, at: Date): Promise<SignedIn> {
    await repository.deleteExpiredSessions(user.id, at.toISOString());
    const token = generateSessionToken();
    const expiresAt = new Date(at.getTime() + sessionTtlMs).toISOString();
    await repository.insertSession({ tokenHash: hashSessionToken(token), userId: user.id, createdAt: at.toISOString(), expiresAt });
    return { token, expiresAt, csrfToken: csrfTokenFor(token), user: toSessionUser(user) };
  }

  return {
    /**
     * Creates a user of the company. Without a password, one is generated
     * and returned here, once. CONFLICT when the email is taken. Recorded as
     * `user.create` (email and role, never the password) in the same transaction.
     */
    async create(
      input: { companySlug: string; email: string; role: string; password?: string },
      actor: Actor = CLI_ACTOR,
    ): Promise<{ user: UserInfo; generatedPassword: string | null }> {
      const company = await companies.getBySlug(input.companySlug);
      const email = checkEmail(input.email);
      const role = checkRole(input.role);
      const generatedPassword = input.password === undefined ? generatePassword() : null;
      const password = input.password ?? (generatedPassword as string);
      const problem = passwordProblem(password);
      if (problem) throw new AppError('BAD_USER_INPUT', `${problem}.`, { field: 'password' });
      const taken = () => new AppError('CONFLICT', `A user with email "${email}" already exists.`, { field: 'email' });
      if (await repository.findUserByEmail(email)) throw taken();
      const uuid = randomUUID();
      const createdAt = now().toISOString();
      const passwordHash = await hashPassword(password, passwordParams);
      const created = store.transaction(async (tx) => {
        await createUserRepository(tx).insertUser({ uuid, companyId: company.id, email, role, passwordHash, createdAt });
        const change = buildChange('user.create', uuid, null, { email, role });
        await audit.recordIn(tx, actor, [{ companyId: company.id, change }]);
      });
      await unique(store, created, taken);
      const user: UserInfo = { id: uuid, email, role, company: company.slug, companyName: company.name, createdAt };
      return { user, generatedPassword };
    },

    /** The company's users, by email. */
    async list(companySlug: string): Promise<UserInfo[]> {
      const company = await companies.getBySlug(companySlug);
      return (await repository.listUsersByCompany(company.id)).map(toSessionUser).map(({ companyId: _, ...info }) => info);
    },

    /**
     * Checks an email and password from `address` and starts a session.
     * TOO_MANY_REQUESTS (with `retryAfterSeconds`) while the account or the
     * address is locked, checked before the password; UNAUTHENTICATED for a
     * wrong email or password, alike for both.
     */
    async signIn(input: { email: string; password: string; address: string }): Promise<SignedIn> {
      const at = now();
      const subjects = { account: accountSubject(input.email), address: addressSubject(input.address) };
      await checkNotLocked(subjects, at);
      const user = await repository.findUserByEmail(input.email.trim().toLowerCase());
      const password = input.password.length > MAX_PASSWORD_LENGTH ? '' : input.password;
      // an unknown email costs one hash too, so timing does not tell which emails exist
      const matches = await verifyPassword(password, user?.passwordHash ?? dummyHash);
      if (!user || !matches) {
        await repository.insertFailures([subjects.account, subjects.address], at.toISOString());
        await repository.pruneFailures(new Date(at.getTime() - Math.max(ACCOUNT_LOCKOUT.windowMs, ADDRESS_LOCKOUT.windowMs)).toISOString());
        throw new AppError('UNAUTHENTICATED', 'Wrong email or password.');
      }
      await repository.deleteFailures(subjects.account);
      return startSession(user, at);
    },

    /** The live session for a cookie's token; undefined for a malformed, unknown, expired or signed-out one. */
    async resolveSession(token: string): Promise<ActiveSession | undefined> {
      if (!isWellFormedSessionToken(token)) return undefined;
      const tokenHash = hashSessionToken(token);
      const session = await repository.findSession(tokenHash);
      if (session === undefined) return undefined;
      if (Date.parse(session.expiresAt) <= now().getTime()) {
        await repository.deleteSession(tokenHash);
        return undefined;
      }
      return { user: toSessionUser(session.user), expiresAt: session.expiresAt, csrfToken: csrfTokenFor(token) };
    },

    /**
     * Changes the password of the session's user. The current password must
     * match (a wrong one counts as a failed sign-in of the account and of
     * `address`, and a locked one cannot change it); the new one follows the password
     * rules. Every session of the user ends, on every process, and a new
     * one starts for the caller, whose token is returned. Recorded as
     * `user.password_change`, without any password or hash.
     */
    async changePassword(token: string, input: { current: string; next: string; address: string }): Promise<SignedIn> {
      const session = isWellFormedSessionToken(token) ? await repository.findSession(hashSessionToken(token)) : undefined;
      const at = now();
      if (session === undefined || Date.parse(session.expiresAt) <= at.getTime()) {
        throw new AppError('UNAUTHENTICATED', 'The session has ended: sign in again.');
      }
      const user = session.user;
      const subjects = { account: accountSubject(user.email), address: addressSubject(input.address) };
      await checkNotLocked(subjects, at);
      const current = input.current.length > MAX_PASSWORD_LENGTH ? '' : input.current;
      if (!(await verifyPassword(current, user.passwordHash))) {
        await repository.insertFailures([subjects.account, subjects.address], at.toISOString());
        throw new AppError('BAD_USER_INPUT', 'The current password is wrong.', { field: 'current' });
      }
      const problem = passwordProblem(input.next);
      if (problem) throw new AppError('BAD_USER_INPUT', `The new password is not accepted: ${problem}.`, { field: 'next' });
      if (input.next === input.current) {
        throw new AppError('BAD_USER_INPUT', 'The new password is the current one: choose another.', { field: 'next' });
      }
      const passwordHash = await hashPassword(input.next, passwordParams);
      const actor: Actor = { type: 'user', id: user.uuid, label: user.email };
      await store.transaction(async (tx) => {
        const users = createUserRepository(tx);
        await users.updatePasswordHash(user.id, passwordHash);
        await users.deleteSessionsOfUser(user.id);
        const change = buildChange('user.password_change', user.uuid, null, null);
        await audit.recordIn(tx, actor, [{ companyId: user.companyId, change }]);
      });
      await repository.deleteFailures(subjects.account);
      return startSession({ ...user, passwordHash }, at);
    },

    /** Ends the session at once, on every process; a no-op for an unknown token. */
    async signOut(token: string): Promise<void> {
      if (isWellFormedSessionToken(token)) await repository.deleteSession(hashSessionToken(token));
    },

    /** The caller a session reads as: the user's company, no key, write scope for admins only. */
    callerFor(user: SessionUser): Caller {
      return {
        companyId: user.companyId,
        companySlug: user.company,
        keyId: null,
        keyUuid: null,
        label: `dashboard user ${user.id}`,
        scope: user.role === 'admin' ? 'read_write' : 'read',
        // what the audit log records for this user's writes and key events
        actor: { type: 'user', id: user.id, label: user.email },
      };
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;

function checkEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (email.length > 254 || !EMAIL_PATTERN.test(email)) {
    throw new AppError('BAD_USER_INPUT', `"${input}" is not an email address, e.g. admin@example.com.`, { field: 'email' });
  }
  return email;
}

function checkRole(input: string): UserRole {
  if ((USER_ROLES as readonly string[]).includes(input)) return input as UserRole;
  throw new AppError('BAD_USER_INPUT', `role must be one of ${USER_ROLES.join(', ')}.`, { field: 'role' });
}

function toSessionUser(row: UserRow): SessionUser {
  return {
    id: row.uuid,
    email: row.email,
    role: row.role as UserRole,
    company: row.companySlug,
    companyName: row.companyName,
    companyId: row.companyId,
    createdAt: row.createdAt,
  };
}
