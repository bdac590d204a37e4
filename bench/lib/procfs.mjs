// CPU time and memory of processes, read from /proc (Linux only).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (usually 100). */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function readStat(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name may hold spaces and parentheses: split after the last ')'
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), utime: Number(fields[11]), stime: Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** The process and all its descendants (a cluster primary and its workers). */
export function processTree(rootPid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const tree = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift();
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU seconds (user + system) used so far by each pid; pids that are gone are left out. */
export function cpuSeconds(pids) {
  const out = new Map();
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat) out.set(pid, (stat.utime + stat.stime) / CLOCK_TICKS);
  }
  return out;
}

/** CPU seconds used between two `cpuSeconds` snapshots; a pid new in `after` counts from zero. */
export function cpuDelta(before, after) {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** Resident memory of the pids, in bytes, summed. */
export function residentBytes(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) total += Number(match[1]) * 1024;
    } catch {
      // the process ended
    }
  }
  return total;
}

/** Samples the summed RSS of `pids()` every `intervalMs`; `stop()` returns the peak seen. */
export function sampleResidentPeak(pids, intervalMs = 200) {
  let peak = residentBytes(pids());
  const timer = setInterval(() => {
    peak = Math.max(peak, residentBytes(pids()));
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, residentBytes(pids()));
    },
  };
}

/** Facts about the machine, for the report. */
export function machineFacts() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? 'unknown CPU';
  const memTotal = Number(/MemTotal:\s+(\d+) kB/.exec(fs.readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) * 1024;
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  return { cpuModel: model, memoryBytes: memTotal, loadAverage: load };
}
