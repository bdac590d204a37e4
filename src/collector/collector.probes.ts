import net from 'node:net';
import type { ProbeTarget } from '../kernel/snmp-target.js';

/** What a round of probes measured: null latency and jitter when no probe was answered. */
export interface ProbeResult {
  readonly latencyMs: number | null;
  readonly jitterMs: number | null;
  readonly lossPercent: number;
}

/**
 * Measures the path to `target` with `count` TCP connection attempts, one
 * after the other: each round trip is the time from the SYN to the answer,
 * an accepted connection or a refusal (RST) alike, both of which crossed the
 * path and came back; an attempt that gets no answer within `timeoutMs`, or
 * fails on the way (no route, host unreachable), is lost. Latency is the mean
 * round trip of the answered attempts; jitter the mean absolute difference
 * between consecutive answered round trips (RFC 3550's smoothing left out);
 * loss the share of attempts lost, in percent. TCP needs no privilege, unlike
 * ICMP echo, and passes where firewalls drop ping.
 */
export async function probeTcp(target: ProbeTarget, count: number, timeoutMs: number): Promise<ProbeResult> {
  const rtts: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const rtt = await connectOnce(target, timeoutMs);
    if (rtt !== null) rtts.push(rtt);
  }
  const lossPercent = round(((count - rtts.length) / count) * 100);
  if (rtts.length === 0) return { latencyMs: null, jitterMs: null, lossPercent };
  const latencyMs = round(rtts.reduce((sum, r) => sum + r, 0) / rtts.length);
  const jitterMs = rtts.length < 2 ? 0 : round(rtts.slice(1).reduce((sum, r, k) => sum + Math.abs(r - (rtts[k] as number)), 0) / (rtts.length - 1));
  return { latencyMs, jitterMs, lossPercent };
}

/** Codes of a connection attempt that the target answered: it refused, or reset the connection. */
const ANSWERED = new Set(['ECONNREFUSED', 'ECONNRESET']);

/** One attempt's round trip in milliseconds, or null when it got no answer. */
function connectOnce(target: ProbeTarget, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ host: target.host, port: target.port });
    const finish = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered ? performance.now() - started : null);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.once('connect', () => finish(true));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(ANSWERED.has(error.code ?? '')));
  });
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
