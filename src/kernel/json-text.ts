/**
 * `value` as JSON text with each character that `characters` (a global
 * pattern) matches written as its `\u` escape: JSON a script element cannot
 * end (the dashboard's charts), or JSON in ASCII only (the request log's
 * entries, stored as latin1 bytes).
 */
export function jsonEscaping(value: unknown, characters: RegExp): string {
  return JSON.stringify(value).replace(characters, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
