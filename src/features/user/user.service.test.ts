import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/helpers/stores.js';
import type { TestDatabase } from '../../../test/helpers/stores.js';
import { storeKinds } from '../../../test/helpers/stores.js';
import { parseDatabaseUrl } from '../../config.js';
import { migrateToLatest } from '../../db/migrate.js';
import { openStore } from '../../db/open-store.js';
import type { Store } from '../../db/store.js';
import { AppError } from '../../kernel/errors.js';
import { createServices } from '../../services.js';
import type { UserService } from './user.service.js';
import { csrfTokenFor, hashSessionToken } from './user.session.js';

const CHEAP = { N: 1024, r: 8, p: 1 };
const MINUTE = 60_000;
const PASSWORD = 'correct horse battery';

/** A settable clock shared by the services under test. */
function createClock(start = Date.UTC(2026, 10, 22, 9, 0, 0)) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe.each(storeKinds())('the user service on %s', (kind) => {
  let database: TestDatabase;
  // two stores on one database stand for two server processes
  let stores: Store[];
  let clock: ReturnType<typeof createClock>;
  let users: UserService;
  let otherProcess: UserService;
  let n = 0;
  const email = () => `user${n}@acme.example`;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const target = parseDatabaseUrl(database.url);
    stores = [await openStore(target, { poolSize: 2 }), await openStore(target, { poolSize: 2 })];
    await migrateToLatest(stores[0] as Store);
    const { companies } = createServices(stores[0] as Store);
    await companies.create({ slug: 'acme', name: 'Acme' });
    await companies.create({ slug: 'globex', name: 'Globex' });
  });
  afterAll(async () => {
    for (const store of stores ?? []) await store.close();
    await database?.drop();
  });
  beforeEach(async () => {
    n += 1;
    clock = createClock(Date.UTC(2026, 10, 22, 9, 0, 0) + n * 3600_000);
    const make = (store: Store) =>
      createServices(store, { now: clock.now, users: { now: clock.now, sessionTtlMs: 60 * MINUTE, passwordParams: CHEAP } }).users;
    users = make(stores[0] as Store);
    otherProcess = make(stores[1] as Store);
    await users.create({ companySlug: 'acme', email: email(), role: 'admin', password: PASSWORD });
  });

  it('signs a user in, resolves the session to its user and company, and stores only the token hash', async () => {
    const signedIn = await users.signIn({ email: email().toUpperCase(), password: PASSWORD, address: '10.0.0.1' });
    expect(signedIn.user).toMatchObject({ email: email(), role: 'admin', company: 'acme', companyName: 'Acme' });
    expect(signedIn.csrfToken).toBe(csrfTokenFor(signedIn.token));
    const session = await otherProcess.resolveSession(signedIn.token);
    expect(session?.user.id).toBe(signedIn.user.id);
    expect(session?.csrfToken).toBe(signedIn.csrfToken);
    const rows = await (stores[0] as Store).db.selectFrom('user_sessions').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).toContain(hashSessionToken(signedIn.token));
    expect(rows.map((r) => r.token_hash)).not.toContain(signedIn.token);
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const wrong = await rejection(users.signIn({ email: email(), password: 'not the password', address: '10.0.0.2' }));
    const unknown = await rejection(users.signIn({ email: 'nobody@acme.example', password: PASSWORD, address: '10.0.0.2' }));
    expect([wrong.code, wrong.message]).toEqual(['UNAUTHENTICATED', 'Wrong email or password.']);
    expect([unknown.code, unknown.message]).toEqual([wrong.code, wrong.message]);
  });

  it('locks an account after 5 failures within 15 minutes, across processes, even for the right password', async () => {
    let tries = 0;
    // a new address each time, so only the per-account rule can lock
    const attempt = (service: UserService, password: string) => service.signIn({ email: email(), password, address: `10.1.${n}.${++tries}` });
    for (let i = 0; i < 3; i++) await rejection(attempt(users, 'wrong password'));
    clock.advance(5 * MINUTE);
    for (let i = 0; i < 2; i++) await rejection(attempt(otherProcess, 'wrong password'));
    const locked = await rejection(attempt(users, PASSWORD));
    expect(locked.code).toBe('TOO_MANY_REQUESTS');
    expect(locked.message).toBe('Too many failed sign-ins. Try again in 10 minutes.');
    expect(locked.details.retryAfterSeconds).toBe(600);
    clock.advance(10 * MINUTE - 1000);
    expect((await rejection(attempt(otherProcess, PASSWORD))).code).toBe('TOO_MANY_REQUESTS');
    clock.advance(1000);
    // the three oldest failures left the window: two remain, so the right password works again
    expect((await attempt(users, PASSWORD)).user.email).toBe(email());
  });

  it('forgets an account\'s failures after a successful sign-in', async () => {
    const attempt = (password: string) => users.signIn({ email: email(), password, address: `10.2.${n}.1` });
    for (let i = 0; i < 4; i++) await rejection(attempt('wrong password'));
    await attempt(PASSWORD);
    for (let i = 0; i < 4; i++) await rejection(attempt('wrong password'));
    expect((await attempt(PASSWORD)).user.email).toBe(email());
  });

  it('locks an address after 20 failures on any accounts, and not other addresses', async () => {
    const address = `10.3.${n}.1`;
    for (let i = 0; i < 20; i++) {
      await rejection(users.signIn({ email: `guess${i}@acme.example`, password: 'guess', address }));
    }
    const locked = await rejection(users.signIn({ email: email(), password: PASSWORD, address }));
    expect(locked.code).toBe('TOO_MANY_REQUESTS');
    expect((await otherProcess.signIn({ email: email(), password: PASSWORD, address: `10.3.${n}.2` })).user.email).toBe(email());
    clock.advance(15 * MINUTE);
    expect((await users.signIn({ email: email(), password: PASSWORD, address })).user.email).toBe(email());
  });

  it('ends a session when it expires and when the user signs out', async () => {
    const first = await users.signIn({ email: email(), password: PASSWORD, address: '10.4.0.1' });
    const second = await users.signIn({ email: email(), password: PASSWORD, address: '10.4.0.1' });
    clock.advance(60 * MINUTE - 1);
    expect(await users.resolveSession(first.token)).toBeDefined();
    await otherProcess.signOut(second.token);
    expect(await users.resolveSession(second.token)).toBeUndefined();
    clock.advance(1);
    expect(await users.resolveSession(first.token)).toBeUndefined();
    expect(await users.resolveSession('not a token')).toBeUndefined();
  });

  it('creates users with a generated password, once, and refuses duplicates and bad input', async () => {
    const created = await users.create({ companySlug: 'globex', email: `member${n}@globex.example`, role: 'member' });
    expect(created.generatedPassword).toMatch(/^[A-Za-z2-9]{5}(-[A-Za-z2-9]{5}){3}$/);
    expect(created.user).toMatchObject({ role: 'member', company: 'globex' });
    const signedIn = await users.signIn({ email: `member${n}@globex.example`, password: created.generatedPassword as string, address: '10.5.0.1' });
    expect(users.callerFor(signedIn.user)).toMatchObject({ companySlug: 'globex', keyId: null, scope: 'read' });

    expect((await rejection(users.create({ companySlug: 'acme', email: email().toUpperCase(), role: 'member', password: PASSWORD }))).code).toBe('CONFLICT');
    const bad = [
      { companySlug: 'acme', email: 'not-an-email', role: 'admin', password: PASSWORD },
      { companySlug: 'acme', email: `x${n}@acme.example`, role: 'owner', password: PASSWORD },
      { companySlug: 'acme', email: `y${n}@acme.example`, role: 'admin', password: 'short' },
    ];
    for (const input of bad) expect((await rejection(users.create(input))).code).toBe('BAD_USER_INPUT');
    expect((await rejection(users.create({ companySlug: 'nobody', email: `z${n}@acme.example`, role: 'admin' }))).code).toBe('NOT_FOUND');
  });

  it('reads as the user\'s company, with write scope for admins only', async () => {
    const signedIn = await users.signIn({ email: email(), password: PASSWORD, address: '10.6.0.1' });
    expect(users.callerFor(signedIn.user)).toMatchObject({ companySlug: 'acme', keyId: null, keyUuid: null, scope: 'read_write' });
    expect(users.callerFor(signedIn.user).companyId).toBe(signedIn.user.companyId);
  });
});
