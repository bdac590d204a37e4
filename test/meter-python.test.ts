import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import { outputOf } from './helpers/cli.js';
import type { CliResult } from './helpers/cli.js';
import type { TestApp } from './helpers/app.js';
import { SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, fullReport, postReports } from './helpers/reports.js';
import { storeKinds } from './helpers/stores.js';

const SCRIPT = path.resolve(import.meta.dirname, '../examples/meter_network_report.py');

/** Runs the example script the way a user would, with only the URL and the key changed. */
function runScript(url: string, key: string): Promise<CliResult> {
  return outputOf(spawn('python3', [SCRIPT, 'acme', 'hq'], { env: { ...process.env, METER_API_URL: url, METER_API_KEY: key } }));
}

// issue 16's "Done when": a Python script written for the Meter API runs unchanged and gets real data
describe.each(storeKinds())('a Meter API Python script against netgraph on %s', (kind) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(kind, { data: createFixture() });
    // the switch and the access point report every minute for the last 30 minutes
    const now = Date.now();
    const reports = [SERIALS.acmeSwitch, SERIALS.acmeAp].flatMap((serial) => Array.from({ length: 30 }, (_, i) => fullReport(serial, now - (30 - i) * 60_000, i + 1)));
    expect((await postReports(app, await createScopedKey(app, 'ingest'), reports)).status).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers every query of the script with the reported data', async () => {
    const { code, stdout, stderr } = await runScript(`${app.url}/api/v1/graphql`, await createScopedKey(app, 'read'));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^uplinks: [1-9]/m);
    expect(stdout).toMatch(/^uplink quality, last hour: [1-9]\d* values, min 1$/m);
    expect(stdout).toMatch(/^throughput values, last hour: [1-9]/m);
    // both devices list the same client in their latest reports: merged into one, on the reported SSID
    expect(stdout).toMatch(/^clients: 1$/m);
    expect(stdout).toMatch(/^ {2}3c:22:fb:00:00:1e client-30 10\.0\.10\.23 Acme-Corp signal=-50 ap=AP "lobby"/m);
    expect(stdout).toMatch(/^bssids: [1-9]/m);
    expect(stdout).toMatch(/^events: [1-9]/m);
    expect(stdout).toMatch(/^ {2}\S+ TEST_EVENT /m);
    // 30 readings of 1,000 bytes more each: 29 increments after the first reading of the window
    expect(stdout).toMatch(/online=True ports=1 received=29000 bytes$/m);
  });
});
