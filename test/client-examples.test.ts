import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.js';
import type { TestApp } from './helpers/app.js';
import { ROOT, outputOf } from './helpers/cli.js';
import type { CliResult } from './helpers/cli.js';
import { IDS, SERIALS, createFixture } from './helpers/fixture.js';
import { createScopedKey, fullReport, postReports } from './helpers/reports.js';

const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const COMPILED = path.join(ROOT, 'dist/examples/client');

/** Runs a compiled example as docs/client.md says, against the test server. */
function runExample(name: string, args: string[], url: string, key: string): Promise<CliResult> {
  const child = spawn(process.execPath, [path.join(COMPILED, `${name}.js`), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NETGRAPH_URL: url, NETGRAPH_API_KEY: key },
  });
  return outputOf(child);
}

// the examples of docs/client.md, typed against the package's own `netgraph/client` (dist/, built by the test run)
describe('the client examples of docs/client.md', () => {
  let app: TestApp;
  beforeAll(async () => {
    // typechecks them against dist/client's declarations through the exports map, and compiles them
    await promisify(execFile)(process.execPath, [TSC, '-p', 'examples/client'], { cwd: ROOT });
    app = await startTestApp('sqlite', { data: createFixture() });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('are the scripts docs/client.md shows, word for word', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/client.md'), 'utf8');
    for (const name of ['inventory-export', 'offline-watcher', 'bulk-vlan']) {
      const file = `examples/client/${name}.ts`;
      expect(doc).toContain(`<!-- ${file} -->\n\`\`\`ts\n${fs.readFileSync(path.join(ROOT, file), 'utf8')}\`\`\`\n`);
    }
  });

  it('inventory-export writes one CSV line per virtual device, quoting what needs it', async () => {
    const { code, stdout, stderr } = await runExample('inventory-export', ['acme'], app.url, await createScopedKey(app, 'read'));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('network,device,type,model,serial,online,connected');
    expect(stdout).toContain(`hq,"AP ""lobby""\n2nd line",ACCESS_POINT,AP-W7,${SERIALS.acmeAp},true,true`);
    expect(stdout).toContain('hq,Observer 🛰,OBSERVER,OBS-1,,true,\n');
    expect(stdout).toContain(`lab,AP 1,ACCESS_POINT,AP-W6E,${SERIALS.acmeLabAp},`);
  });

  it('offline-watcher --once prints the offline devices, then the state changes of the last hour from the event log', async () => {
    const key = await createScopedKey(app, 'read');
    const before = await runExample('offline-watcher', ['acme', '--once'], app.url, key);
    expect(before.stderr).toBe('');
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^\S+ OFFLINE HQ — Zürich \/ Core switch\twith tab\n$/);
    // the switch reports: it comes online, and netgraph records that in the event log
    expect((await postReports(app, await createScopedKey(app, 'ingest'), [fullReport(SERIALS.acmeSwitch, Date.now() - 1000, 1)])).status).toBe(200);
    const after = await runExample('offline-watcher', ['acme', '--once'], app.url, key);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/^ {2}log \S+ DEVICE_ONLINE HQ — Zürich \/ Core switch\twith tab\n$/);
  });

  it('bulk-vlan plans, then applies one mutation a network, and reports a refused one with its code and field', async () => {
    const key = await createScopedKey(app, 'read_write');
    const plan = await runExample('bulk-vlan', ['acme', '20', 'Visitors'], app.url, key);
    expect(plan.stdout).toContain('hq: would change VLAN 20 "Guest" to "Visitors", enabled\n');
    expect(plan.stdout).toContain('lab: would create VLAN 20 "Visitors", enabled\n');
    const applied = await runExample('bulk-vlan', ['acme', '20', 'Visitors', '--apply'], app.url, key);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('hq: change VLAN 20 "Guest" to "Visitors", enabled: done\n');
    const vlans = await app.graphql(`{ vlans(networkUUID: "${IDS.acmeHq}") { vlanID name isEnabled } }`);
    expect(vlans.body.data.vlans).toContainEqual({ vlanID: 20, name: 'Visitors', isEnabled: true });
    const again = await runExample('bulk-vlan', ['acme', '20', 'Visitors', '--apply'], app.url, key);
    expect(again.stdout).toContain('hq: VLAN 20 is already "Visitors", enabled\n');
    const refused = await runExample('bulk-vlan', ['acme', '5000', 'Bad', '--apply'], app.url, key);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('hq: create VLAN 5000 "Bad", enabled: BAD_USER_INPUT (input.vlanID): ');
  });
});
