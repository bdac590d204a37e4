const UNITS: readonly [string, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/** "just now", "5 minutes ago", "in 2 hours", "3 days ago": the largest whole unit between `at` and `now`. */
export function relativeTime(at: string, now: Date): string {
  const diff = now.getTime() - Date.parse(at);
  const abs = Math.abs(diff);
  if (abs < 60_000) return 'just now';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(abs / size);
    if (n >= 1) {
      const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
      return diff >= 0 ? `${text} ago` : `in ${text}`;
    }
  }
  return 'just now';
}

/** The exact time, readable and unambiguous: "2026-11-21 17:03:00 UTC". */
export function exactTime(at: string): string {
  return `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A short date: "21 Nov 2026". */
export function shortDate(at: string): string {
  return new Date(at).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}

/** SWITCH -> "Switch", ACCESS_POINT -> "Access point". */
export function humanizeEnum(value: string): string {
  const words = value.toLowerCase().split('_');
  return words.map((w, i) => (i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join(' ');
}
