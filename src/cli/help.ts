import { bashCompletion, zshCompletion } from './completion.js';
import type { Command, OptionSpec } from './io.js';
import { UsageError, optionsOf } from './io.js';

// Help text, suggestions and the `help` and `completion` commands, all read from the command table's declarations.

const FOOTER = [
  'Run "netgraph help <command>" or "netgraph <command> --help" for its options, their defaults and an example.',
  'Every command takes --json for output meant for scripts.',
  'Configuration comes from the environment (DATABASE_URL, PORT, HOST, LOG_LEVEL, ...): see README.md.',
];

/** The words of a command, e.g. "keys create". */
export function nameOf(command: Command): string {
  return command.path.join(' ');
}

function flagOf(name: string, option: OptionSpec): string {
  const long = option.type === 'string' ? `--${name} ${option.value ?? 'VALUE'}` : `--${name}`;
  return option.short ? `-${option.short}, ${long}` : long;
}

/** `netgraph keys create --company SLUG --label TEXT [options]`: the operands and the required options. */
function usageLine(command: Command): string {
  const required = Object.entries(command.options).filter(([, option]) => option.required).map(([name, option]) => `--${name} ${option.value ?? 'VALUE'}`);
  return ['netgraph', ...command.path, ...(command.operands ? [command.operands.usage] : []), ...required, '[options]'].join(' ');
}

/** Rows as two columns, the first padded to its widest cell. */
function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}   ${right}`.trimEnd());
}

function describeOption(option: OptionSpec): string {
  const notes = [
    ...(option.required ? ['required'] : []),
    ...(option.multiple ? ['repeatable'] : []),
    ...(option.choices ? [`one of ${option.choices.join(', ')}`] : []),
    ...(option.default !== undefined ? [`default: ${option.default}`] : []),
  ];
  return notes.length === 0 ? option.description : `${option.description} (${notes.join('; ')})`;
}

/** A command's words and operands, e.g. "keys revoke ID". */
function headOf(command: Command): string {
  return command.operands ? `${nameOf(command)} ${command.operands.usage}` : nameOf(command);
}

/** `netgraph help`: every command with its summary, those that share a first word together. */
export function formatOverview(commands: readonly Command[]): string {
  const firsts = commands.map((c) => c.path[0]);
  const ordered = [...commands].sort((a, b) => firsts.indexOf(a.path[0]) - firsts.indexOf(b.path[0]));
  return ['Usage: netgraph <command> [options]', '', 'Commands:', ...columns(ordered.map((c) => [headOf(c), c.summary])), '', ...FOOTER].join('\n');
}

/** `netgraph help keys`: the commands that start with a word. */
export function formatGroup(word: string, commands: readonly Command[]): string {
  const members = commands.filter((c) => c.path[0] === word);
  return [`Usage: netgraph ${word} <command> [options]`, '', 'Commands:', ...columns(members.map((c) => [headOf(c), c.summary])), '', FOOTER[0]].join('\n');
}

/** `netgraph help keys create`: usage, every option with its default, and examples. */
export function formatCommandHelp(command: Command): string {
  const lines = [`Usage: ${usageLine(command)}`, '', `${command.summary[0]?.toUpperCase() ?? ''}${command.summary.slice(1)}.`];
  if (command.operands) lines.push('', 'Arguments:', ...columns([[command.operands.usage, command.operands.description]]));
  lines.push('', 'Options:', ...columns(optionsOf(command).map(([name, option]) => [flagOf(name, option), describeOption(option)])));
  lines.push('', command.examples.length === 1 ? 'Example:' : 'Examples:', ...command.examples.map((example) => `  ${example}`));
  return lines.join('\n');
}

/** The edit distance of two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate closest to `input`, or undefined when none is close: one
 * that starts with it, else the fewest edits, at most a third of its length
 * (and at least 2), the first in the list on a tie.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  if (input.length >= 2) {
    const prefixed = candidates.find((candidate) => candidate.startsWith(input));
    if (prefixed !== undefined) return prefixed;
  }
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(input, candidate);
    if (distance <= Math.max(2, Math.floor(candidate.length / 3)) && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** What to say about an unknown option: the closest valid one, or every valid one when none is close. */
export function unknownOptionMessage(command: Command, raw: string): string {
  const names = optionsOf(command).map(([name]) => `--${name}`);
  const match = closest(raw.startsWith('--') ? raw.split('=')[0] ?? raw : `--${raw.replace(/^-+/, '')}`, names);
  const hint = match !== undefined ? `Did you mean '${match}'?` : `Its options: ${names.join(', ')}.`;
  return `Unknown option '${raw}'. ${hint}`;
}

/** What to say about words that name no command: the closest command, if any is close. */
export function unknownCommandMessage(words: readonly string[], commands: readonly Command[]): string {
  const typed = words.join(' ');
  const members = commands.filter((c) => c.path.length > 1 && c.path[0] === typed);
  if (members.length > 0) return `"${typed}" needs one of its commands: ${members.map((c) => c.path[1]).join(', ')}.`;
  const match = closest(typed, commands.map(nameOf)) ?? closest(words[0] ?? '', [...new Set(commands.map((c) => c.path[0] ?? ''))]);
  return `unknown command "${typed}".${match !== undefined ? ` Did you mean "netgraph ${match}"?` : ''}`;
}

/** The help for `words` (a command, a first word, or nothing); BAD_USER_INPUT naming the closest command when none matches. */
export function helpFor(words: readonly string[], commands: readonly Command[]): string {
  if (words.length === 0) return formatOverview(commands);
  const command = commands.find((c) => c.path.length === Math.min(words.length, c.path.length) && c.path.every((word, i) => words[i] === word));
  if (command) return formatCommandHelp(command);
  if (words.length === 1 && commands.some((c) => c.path[0] === words[0])) return formatGroup(words[0] ?? '', commands);
  throw new UsageError(unknownCommandMessage(words, commands));
}

/** `netgraph help [COMMAND]` and `netgraph completion bash|zsh`, over the table that `commands` returns (this one included). */
export function helpCommands(commands: () => readonly Command[]): Command[] {
  return [
    {
      path: ['help'],
      summary: 'print the list of commands, or one command\'s usage, options and examples',
      operands: { usage: '[COMMAND]', description: 'a command, e.g. "keys create", or its first word', complete: 'command' },
      options: {},
      examples: ['netgraph help keys create'],
      async run({ positionals, io }) {
        io.out(helpFor(positionals, commands()));
        return 0;
      },
    },
    {
      path: ['completion'],
      summary: 'print a shell completion script for bash or zsh',
      operands: { usage: 'SHELL', description: 'bash or zsh', choices: ['bash', 'zsh'] },
      options: {},
      examples: ['source <(netgraph completion bash)', 'netgraph completion zsh > "${fpath[1]}/_netgraph"'],
      async run({ positionals, io }) {
        const shell = positionals[0];
        if (shell === 'bash') io.out(bashCompletion(commands()));
        else if (shell === 'zsh') io.out(zshCompletion(commands()));
        else throw new UsageError(`name the shell, bash or zsh, e.g. netgraph completion bash${shell === undefined ? '' : ` (not "${shell}")`}`);
        return 0;
      },
    },
  ];
}
