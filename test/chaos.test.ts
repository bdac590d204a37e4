// The short chaos run (scripts/chaos.mjs --short): two netgraph processes
// behind HAProxy on a PostgreSQL cluster and a Redis of its own, under mixed
// reads, writes and reports, while one process is killed and started again,
// keys are revoked and Redis stops and starts. Only what must hold is
// asserted here; the timings are figures of `npm run chaos` (docs/operations.md).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

const NEEDS = ['/usr/sbin/haproxy', '/usr/bin/redis-server', '/usr/lib/postgresql/15/bin/initdb'];

/** True when the run's own services can start here; with CI=true a missing one fails the run. */
function chaosAvailable(): boolean {
  const missing = NEEDS.filter((file) => !fs.existsSync(file));
  if (missing.length === 0) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true requires ${missing.join(', ')} for the chaos test`);
  console.warn(`notice: ${missing.join(', ')} missing, so the chaos test is skipped`);
  return false;
}

interface ChaosReport {
  readonly requests: { readonly sent: number; readonly byStatus: Record<string, number> };
  readonly acknowledged: { readonly writes: number; readonly reports: number };
  readonly lost: { readonly writes: number; readonly reports: number };
  readonly faults: readonly { readonly fault: string }[];
  readonly revokedKeysAccepted: number;
}

function runChaos(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/chaos.mjs', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.runIf(chaosAvailable())('chaos, short', () => {
  it('loses no acknowledged write or report and accepts no revoked key through a process kill, revocations and a Redis outage', { timeout: 240_000 }, async () => {
    const { code, stdout, stderr } = await runChaos(['--short', '--duration', '25', '--json']);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as ChaosReport;
    expect(report.faults.map((f) => f.fault)).toEqual([
      'kill netgraph-1 (SIGKILL), start it again',
      'revoke a read, a read_write and an ingest key',
      'stop Redis for 3 s, start it again',
    ]);
    // the run did something: writes and reports were acknowledged, and the revoked keys were refused afterwards
    expect(report.acknowledged.writes).toBeGreaterThan(0);
    expect(report.acknowledged.reports).toBeGreaterThan(0);
    expect(report.requests.byStatus['401']).toBeGreaterThan(0);
    expect(report.lost).toEqual({ writes: 0, reports: 0 });
    expect(report.revokedKeysAccepted).toBe(0);
  });
});
