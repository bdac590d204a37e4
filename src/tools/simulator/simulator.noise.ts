/**
 * Deterministic randomness for the simulator: every value is a hash of the
 * seed, an entity and a time, never a draw from a sequence, so the state at
 * any time is known without stepping through the times before it.
 */

/** A 32-bit key of a string (FNV-1a), e.g. of a serial number. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A 32-bit hash of a key and integer parts (murmur3's finaliser per part). */
export function hash32(key: number, ...parts: readonly number[]): number {
  let h = (key ^ 0x9e3779b9) >>> 0;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h ^ Math.floor(part / 0x100000000), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A number in [0, 1) fixed by a key and integer parts. */
export function unit(key: number, ...parts: readonly number[]): number {
  return hash32(key, ...parts) / 0x100000000;
}

/** A number in [min, max) fixed by a key and integer parts. */
export function between(min: number, max: number, key: number, ...parts: readonly number[]): number {
  return min + (max - min) * unit(key, ...parts);
}

/** One item of a non-empty list, fixed by a key and integer parts. */
export function pick<T>(items: readonly T[], key: number, ...parts: readonly number[]): T {
  return items[Math.floor(unit(key, ...parts) * items.length)] as T;
}

/** A version 4 UUID (canonical, lowercase) fixed by a key and integer parts. */
export function uuidOf(key: number, ...parts: readonly number[]): string {
  const hex = [1, 2, 3, 4].map((i) => hash32(key, ...parts, i).toString(16).padStart(8, '0')).join('');
  const variant = '89ab'[Number.parseInt(hex[16] as string, 16) & 3] as string;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A MAC address, lowercase and colon-separated, from six byte values. */
export function formatMac(bytes: readonly number[]): string {
  return bytes.map((b) => (b & 0xff).toString(16).padStart(2, '0')).join(':');
}

/** One cosine term of a rate: its relative amplitude, period (seconds) and phase (radians). */
export interface WaveTerm {
  readonly amplitude: number;
  readonly period: number;
  readonly phase: number;
}

/**
 * A rate that varies smoothly over time: `base × (1 + Σ amplitude·cos(2πt/period + phase))`.
 * Its integral has a closed form, so cumulative counters at any time are
 * computed directly, and stay monotonic as long as the amplitudes sum below 1.
 */
export interface Wave {
  readonly base: number;
  readonly terms: readonly WaveTerm[];
}

/** The wave's value at `t` (seconds). */
export function waveAt(wave: Wave, t: number): number {
  let sum = 1;
  for (const term of wave.terms) sum += term.amplitude * Math.cos((2 * Math.PI * t) / term.period + term.phase);
  return wave.base * sum;
}

/** The integral of the wave from `from` to `to` (seconds); 0 when `to <= from`. */
export function waveIntegral(wave: Wave, from: number, to: number): number {
  if (to <= from) return 0;
  let sum = to - from;
  for (const term of wave.terms) {
    const w = (2 * Math.PI) / term.period;
    sum += (term.amplitude / w) * (Math.sin(w * to + term.phase) - Math.sin(w * from + term.phase));
  }
  return wave.base * sum;
}

/** Short periods (seconds) of the noise terms; primes, so that their sum does not repeat soon. */
const NOISE_PERIODS = [97, 421, 1_303, 5_011] as const;

/**
 * A wave with a daily cycle peaking at `peakSecondOfDay` (UTC) with relative
 * amplitude `daily`, plus noise terms of total amplitude `noise`, phases fixed by `key`.
 */
export function createWave(base: number, daily: number, peakSecondOfDay: number, noise: number, key: number): Wave {
  const terms: WaveTerm[] = [{ amplitude: daily, period: 86_400, phase: (-2 * Math.PI * peakSecondOfDay) / 86_400 }];
  NOISE_PERIODS.forEach((period, i) => {
    terms.push({ amplitude: noise / NOISE_PERIODS.length, period, phase: 2 * Math.PI * unit(key, i) });
  });
  return { base, terms };
}
