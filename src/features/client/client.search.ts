import type { ArgumentProblem, ArgumentValues, RootArgument, SqlContext } from '../../engine/read.model.js';

/** The most rows one page of a searchable list holds. */
export const MAX_SEARCH_PAGE = 100;
/** The longest search text a searchable list takes. */
export const MAX_SEARCH_LENGTH = 64;

/** The arguments a searchable list's root takes after the one naming its owner: the search, then the page. */
export const SEARCH_PAGE_ARGUMENTS: readonly RootArgument[] = [
  { name: 'search', type: 'text', check: (value) => value.length <= MAX_SEARCH_LENGTH, rule: `a text of at most ${MAX_SEARCH_LENGTH} characters` },
  { name: 'limit', type: 'int' },
  { name: 'offset', type: 'int', default: 0 },
];

/** The rule of a searchable list's page: limit 1 to MAX_SEARCH_PAGE, offset 0 or more. */
export function checkSearchPage(args: ArgumentValues): ArgumentProblem | undefined {
  const limit = args.limit as number;
  if (limit < 1 || limit > MAX_SEARCH_PAGE) return { argument: 'limit', message: `must be 1 to ${MAX_SEARCH_PAGE}: page through more with offset.` };
  if ((args.offset as number | null) !== null && (args.offset as number) < 0) return { argument: 'offset', message: 'must be 0 or more.' };
  return undefined;
}

/** A searchable list's page size for complexity: its limit (the most a page may hold when unknown). */
export const searchPageSize = (args: ArgumentValues | undefined): number =>
  args === undefined ? MAX_SEARCH_PAGE : Math.max(1, Math.min(MAX_SEARCH_PAGE, args.limit as number));

/** The search text, trimmed; '' for none. */
export const searchText = (args: ArgumentValues): string => (typeof args.search === 'string' ? args.search.trim() : '');

/** `text` with LIKE's wildcards escaped by `!` (the ESCAPE character every pattern here names). */
const escapeLike = (text: string): string => text.replace(/[!%_]/g, (c) => `!${c}`);

/** A LIKE pattern (ESCAPE '!') matching text that holds `text`, lower-cased. */
export const containsPattern = (text: string): string => `%${escapeLike(text.toLowerCase())}%`;

/** A LIKE pattern (ESCAPE '!') matching text that starts with `text`, lower-cased. */
export const prefixPattern = (text: string): string => `${escapeLike(text.toLowerCase())}%`;

/**
 * The hex digits of a search for a MAC address: the text without `:`, `-`,
 * `.` and spaces, lower-cased; undefined when anything else is left (the
 * text is no part of a MAC address).
 */
export function macDigits(text: string): string | undefined {
  const hex = text.replace(/[:.\-\s]/g, '').toLowerCase();
  return hex !== '' && /^[0-9a-f]+$/.test(hex) ? hex : undefined;
}

/** The LIKE pattern of the search's MAC address hex digits; '' when it has none. */
const macPattern = (args: ArgumentValues): string => {
  const hex = macDigits(searchText(args));
  return hex === undefined ? '' : containsPattern(hex);
};

// Each call of c.value is one parameter at the place its text goes (SQLite's `?` are positional): the SQL below
// calls it once per use, in the order of the text.

/** True (SQL) when the MAC address expression `mac` (`aa:bb:...`) holds the search's hex digits; false when the search has none. */
export function macMatches(c: SqlContext, mac: string): string {
  const hasDigits = c.value('boolean', (args) => macPattern(args) !== '');
  return `(${hasDigits} AND REPLACE(LOWER(${mac}), ':', '') LIKE ${c.value('text', macPattern)} ESCAPE '!')`;
}

/** True (SQL) when the root has no search (absent, or blank). */
export const noSearch = (c: SqlContext): string => c.value('boolean', (args) => searchText(args) === '');

/**
 * The search of networkClientsPage over the client row `cl`: no search, or a
 * MAC address holding its hex digits, an IP address starting with it, or a
 * host name holding it (any case).
 */
export function clientSearch(c: SqlContext, cl: string): string {
  const none = noSearch(c);
  const mac = macMatches(c, `${cl}.mac_address`);
  const ip = `LOWER(${cl}.ip) LIKE ${c.value('text', (args) => prefixPattern(searchText(args)))} ESCAPE '!'`;
  const host = `LOWER(${cl}.hostname) LIKE ${c.value('text', (args) => containsPattern(searchText(args)))} ESCAPE '!'`;
  return `(${none} OR ${mac} OR ${ip} OR ${host})`;
}
