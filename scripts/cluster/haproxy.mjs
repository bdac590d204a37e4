// HAProxy from deploy/haproxy.cfg.template, the configuration
// docs/operations.md shows: rendered here for the test and `npm run chaos`.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, spawnLogged, waitForPort } from './processes.mjs';

/** Where Debian's package installs HAProxy. */
export const HAPROXY = '/usr/sbin/haproxy';
export const TEMPLATE = path.join(ROOT, 'deploy/haproxy.cfg.template');

/**
 * The configuration for one frontend address (`bind`, e.g. "0.0.0.0:80") and
 * its netgraph processes (`servers`: [{ name, address }]), logging to `log`
 * (syslog's "/dev/log local0" by default).
 */
export function renderHaproxyConfig({ bind, servers, log = '/dev/log local0' }) {
  const fields = {
    bind,
    log,
    servers: servers.map((server) => `    server ${server.name} ${server.address} check`).join('\n'),
  };
  return fs.readFileSync(TEMPLATE, 'utf8').replace(/\{\{(\w+)\}\}/g, (_match, name) => {
    if (!(name in fields)) throw new Error(`haproxy template: no value for {{${name}}}`);
    return fields[name];
  });
}

/**
 * Starts HAProxy in the foreground with `config` written to `dir`, and
 * resolves once it listens on `port`. stop() ends it.
 */
export async function startHaproxy({ config, dir, port }) {
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const { child, exited } = spawnLogged(HAPROXY, ['-db', '-f', file], { logFile: path.join(dir, 'haproxy.log') });
  await Promise.race([waitForPort(port), exited.then((code) => Promise.reject(new Error(`haproxy exited (${code}); see ${dir}/haproxy.log`)))]);
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
