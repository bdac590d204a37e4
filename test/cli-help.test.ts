import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands.js';
import { optionsOf } from '../src/cli/io.js';
import type { CliIo } from '../src/cli/io.js';
import { runCli } from '../src/cli/main.js';
import { runNetgraph } from './helpers/cli.js';

// Help, suggestions and completion need no database: a DATABASE_URL that cannot work proves they never read it.
const env = { DATABASE_URL: 'mysql://nowhere' };
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-help-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs the CLI in this process, printing as the command does (a line per
 * call): for the per-command help, which the tests above and below also
 * check through the real binary, without a process start per command.
 */
async function runHere(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { out: (text) => (stdout += `${text}\n`), err: (text) => (stderr += `${text}\n`), readStdin: async () => '' };
  const code = await runCli(args, io, env);
  return { code, stdout, stderr };
}

describe('netgraph help', () => {
  it('lists every command of the table with its summary, and exits 0 (2 without any command)', async () => {
    const result = await runNetgraph(['--help'], env);
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toMatch(new RegExp(`^  ${command.path.join(' ')}\\b.*${escape(command.summary)}$`, 'm'));
    expect((await runNetgraph(['help'], env)).stdout).toBe(result.stdout);
    const bare = await runNetgraph([], env);
    expect([bare.code, bare.stdout]).toEqual([2, result.stdout]);
  });

  it.each(COMMANDS.map((c) => [c.path.join(' ')]))('"%s --help" prints its usage, every option with its default, and an example', async (name) => {
    const command = COMMANDS.find((c) => c.path.join(' ') === name) as (typeof COMMANDS)[number];
    const result = await runHere([...command.path, '--help']);
    expect(result.code, result.stderr).toBe(0);
    const text = result.stdout;
    expect(text).toMatch(new RegExp(`^Usage: netgraph ${name} `));
    for (const [option, spec] of optionsOf(command)) {
      const line = text.split('\n').find((l) => new RegExp(`^  (-\\w, )?--${option}\\b`).test(l));
      expect(line, `--${option} in ${text}`).toBeDefined();
      if (option === 'help') continue;
      // every option says what applies without it: its default, or that it is required
      expect(line).toMatch(spec.required ? /\(.*required.*\)$/ : new RegExp(`default: ${escape(spec.default ?? '<missing default>')}\\)$`));
    }
    const examples = text.slice(text.search(/^Examples?:$/m)).split('\n').slice(1);
    expect(examples.some((line) => line.startsWith('  ') && line.includes(`netgraph ${name}`)), text).toBe(true);
  });

  it('"help keys create", "keys create --help" and "keys create -h" print the same', async () => {
    const [viaHelp, viaFlag, viaShort] = await Promise.all([
      runNetgraph(['help', 'keys', 'create'], env),
      runNetgraph(['keys', 'create', '--help'], env),
      runNetgraph(['keys', 'create', '-h'], env),
    ]);
    expect([viaHelp.code, viaFlag.code, viaShort.code]).toEqual([0, 0, 0]);
    expect(viaFlag.stdout).toBe(viaHelp.stdout);
    expect(viaShort.stdout).toBe(viaHelp.stdout);
    expect(viaHelp.stdout).toContain('Examples:\n  netgraph keys create --company acme --label billing-sync --scope read_write\n');
  });

  it('prints a command\'s help before anything else is checked: other options, required ones, the environment', async () => {
    const result = await runNetgraph(['keys', 'create', '--bogus', '--help'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: netgraph keys create --company SLUG --label TEXT \[options\]/);
    expect(result.stdout).toMatch(/^ {2}--scope SCOPE +.*\(one of read, read_write, ingest; default: read\)$/m);
  });

  it('says that `collector --once` sweeps the discovery ranges once as well as polling, and prints both instead of sending them', async () => {
    const result = await runHere(['collector', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}--once\b.*poll once and sweep each discovery range once, and print the reports and the agents found instead of sending them.*\(default: off\)$/m);
    expect(result.stdout).toMatch(/sweeps its discovery ranges, posting the reports and the agents found until SIGTERM; --once does each once and prints instead/);
  });

  it('lists the commands of a first word for "help keys" and "keys --help"', async () => {
    const [viaHelp, viaFlag] = await Promise.all([runNetgraph(['help', 'keys'], env), runNetgraph(['keys', '--help'], env)]);
    expect([viaHelp.code, viaFlag.code]).toEqual([0, 0]);
    expect(viaFlag.stdout).toBe(viaHelp.stdout);
    expect(viaHelp.stdout).toMatch(/^ {2}keys create .*\n {2}keys list .*\n {2}keys allow ID .*\n {2}keys rotate ID .*\n {2}keys revoke ID .*$/m);
  });
});

describe('suggestions', () => {
  it.each([
    [['keys', 'list', '--compny', 'acme'], /^netgraph keys list: Unknown option '--compny'\. Did you mean '--company'\?\nRun "netgraph keys list --help"/],
    [['webhooks', 'create', '--alert', 'WAN_DOWN'], /Unknown option '--alert'\. Did you mean '--alerts'\?/],
    [['serve', '--worker=2'], /Unknown option '--worker'\. Did you mean '--workers'\?/],
    [['export', '--out', 'x.json'], /Unknown option '--out'\. Did you mean '--output'\?/],
    [['keys', 'list', '--bogus'], /Unknown option '--bogus'\. Its options: --company, --json, --help\./],
    [['kyes', 'list'], /unknown command "kyes list"\. Did you mean "netgraph keys list"\?/],
    [['webhook', 'list'], /unknown command "webhook list"\. Did you mean "netgraph webhooks list"\?/],
    [['keys'], /"keys" needs one of its commands: create, list, allow, rotate, revoke, requests\./],
    [['help', 'simulat'], /unknown command "simulat"\. Did you mean "netgraph simulate"\?/],
    [['completion', 'fish'], /name the shell, bash or zsh/],
  ])('%j exits 2 and names the closest valid word', async (args, message) => {
    // the first through the real binary, the others in this process
    const result = args[0] === 'keys' && args[2] === '--compny' ? await runNetgraph(args, env) : await runHere(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});

describe('netgraph completion', () => {
  it('bash: the sourced script completes commands, subcommands, options and their values', async () => {
    const script = await runNetgraph(['completion', 'bash'], env);
    expect(script.code).toBe(0);
    const file = path.join(scratch, 'netgraph.bash');
    fs.writeFileSync(file, script.stdout);
    fs.writeFileSync(path.join(scratch, 'data.json'), '{}');
    // calls the completion function as bash does on TAB: COMP_WORDS and COMP_CWORD set, candidates read from COMPREPLY
    const complete = (...words: string[]) =>
      execFileSync('bash', ['-c', 'source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _netgraph; printf "%s\\n" "${COMPREPLY[@]}"', file, 'netgraph', ...words], {
        cwd: scratch,
        encoding: 'utf8',
      }).split('\n').filter((word) => word !== '');
    expect(complete('')).toEqual([...new Set(COMMANDS.map((c) => c.path[0]))]);
    expect(complete('we')).toEqual(['webhooks']);
    expect(complete('keys', '')).toEqual(['create', 'list', 'allow', 'rotate', 'revoke', 'requests']);
    expect(complete('webhooks', 'r')).toEqual(['replay', 'rotate-secret']);
    expect(complete('keys', 'create', '--')).toEqual(['--company', '--label', '--scope', '--expires', '--allow', '--json', '--help']);
    expect(complete('keys', 'create', '--company', 'acme', '--sc')).toEqual(['--scope']);
    expect(complete('keys', 'create', '--scope', '')).toEqual(['read', 'read_write', 'ingest']);
    expect(complete('users', 'create', '--role', 'a')).toEqual(['admin']);
    expect(complete('keys', 'create', '--label', '')).toEqual([]);
    expect(complete('import', 'da')).toEqual(['data.json']);
    expect(complete('export', '-o', 'da')).toEqual(['data.json']);
    expect(complete('help', 'webhooks', 'ro')).toEqual(['rotate-secret']);
    expect(complete('completion', '')).toEqual(['bash', 'zsh']);
  });

  const zsh = spawnSync('zsh', ['--version']).status === 0;
  it.skipIf(!zsh)('zsh: the script parses, and declares each option with its description and choices', async () => {
    const script = await runNetgraph(['completion', 'zsh'], env);
    expect(script.code).toBe(0);
    expect(script.stdout).toMatch(/^#compdef netgraph\n/);
    const file = path.join(scratch, '_netgraph');
    fs.writeFileSync(file, script.stdout);
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
    expect(script.stdout).toContain(`'keys create') _arguments -s '--company[the company the key belongs to]:SLUG: '`);
    expect(script.stdout).toContain(`'--scope[what it may do\\: read queries, read_write also mutations, ingest device reports]:SCOPE:(read read_write ingest)'`);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
