import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import type { CliIo } from '../src/cli/io.js';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { createFixture } from './helpers/fixture.js';
import { storeKinds } from './helpers/stores.js';

/** Runs the CLI against the test database with `stdin` piped in (or a terminal when undefined). */
async function cli(app: TestApp, args: string[], stdin?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    readStdin: async () => stdin ?? '',
    stdinIsPiped: () => stdin !== undefined,
  };
  const code = await runCli(args, io, { DATABASE_URL: app.database.url, LOG_LEVEL: 'silent' });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe.each(storeKinds())('netgraph users on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });
  const canSignIn = async (email: string, password: string) =>
    app.server.services.users.signIn({ email, password, address: '127.0.0.1' }).then(
      () => true,
      () => false,
    );

  it('creates a user with the password piped to stdin, printing no password', async () => {
    const res = await cli(app, ['users', 'create', '--company', 'acme', '--email', 'Piped@Acme.example', '--role', 'member'], 'piped password 1\nignored second line\n');
    expect(res).toMatchObject({ code: 0, err: '' });
    expect(res.out).toBe('Created member piped@acme.example for acme; they can sign in to the dashboard now.');
    expect(await canSignIn('piped@acme.example', 'piped password 1')).toBe(true);
  });

  it('generates a password when none is piped and prints it once, also as JSON', async () => {
    const text = await cli(app, ['users', 'create', '--company', 'acme', '--email', 'gen@acme.example', '--role', 'admin']);
    expect(text.code).toBe(0);
    const password = /Password: (\S+)/.exec(text.out)?.[1] as string;
    expect(text.out).toContain('This is the only time the password is shown');
    expect(await canSignIn('gen@acme.example', password)).toBe(true);

    const json = await cli(app, ['users', 'create', '--company', 'globex', '--email', 'json@globex.example', '--role', 'member', '--json'], '');
    expect(json.code).toBe(0);
    const created = JSON.parse(json.out);
    expect(created).toMatchObject({ email: 'json@globex.example', role: 'member', company: 'globex', password: expect.any(String) });
    expect(await canSignIn('json@globex.example', created.password)).toBe(true);
  });

  it('fails with a message for a taken email, a bad role, a short password or an unknown company', async () => {
    const cases: [string[], string | undefined, RegExp][] = [
      [['--company', 'acme', '--email', 'piped@acme.example', '--role', 'admin'], undefined, /already exists/],
      [['--company', 'acme', '--email', 'r@acme.example', '--role', 'owner'], undefined, /role must be one of admin, member/],
      [['--company', 'acme', '--email', 's@acme.example', '--role', 'admin'], 'short\n', /at least 10 characters/],
      [['--company', 'nobody', '--email', 't@acme.example', '--role', 'admin'], undefined, /No company with slug "nobody"/],
      [['--company', 'acme', '--role', 'admin'], undefined, /--email is required/],
    ];
    for (const [args, stdin, message] of cases) {
      const res = await cli(app, ['users', 'create', ...args], stdin);
      expect(res.code).toBe(1);
      expect(res.err).toMatch(message);
    }
  });

  it('lists the users of a company, never their password hashes', async () => {
    const res = await cli(app, ['users', 'list', '--company', 'acme', '--json']);
    const users = JSON.parse(res.out) as Record<string, unknown>[];
    expect(users.map((u) => [u.email, u.role])).toEqual([
      ['gen@acme.example', 'admin'],
      ['piped@acme.example', 'member'],
    ]);
    expect(res.out).not.toContain('scrypt');
  });
});
