#!/usr/bin/env node
// Where one variant of netgraph spends more than another, from the CPU
// profiles `BENCH_CPU_PROF=DIR node bench/run.mjs ...` leaves (one
// .cpuprofile per process; a target's workers are the processes started
// right after its primary): each function's own samples (idle left out) per
// request handled, for the profiles of variant A and of variant B, and their
// difference, largest first. At the profiler's default interval a sample is
// about 1 ms, so samples per 1,000 requests read as about µs per request;
// the profiles cover the processes' whole life (start-up, warm-up, the
// checks, other targets' turns), and on a loaded machine a sample is also
// taken while the thread waits for a core: read shares and differences, not
// CPU time (docs/benchmarks.md, the request log).
// Usage: node bench/cpu-profile-diff.mjs A.cpuprofile[,A2...] B.cpuprofile[,B2...] REQUESTS_A REQUESTS_B [TOP]
import fs from 'node:fs';

const [filesA, filesB, requestsA, requestsB, topArg = '20'] = process.argv.slice(2);
if (!filesA || !filesB || !(Number(requestsA) > 0) || !(Number(requestsB) > 0) || !(Number(topArg) > 0)) {
  console.error('usage: node bench/cpu-profile-diff.mjs A.cpuprofile[,A2...] B.cpuprofile[,B2...] REQUESTS_A REQUESTS_B [TOP]');
  process.exit(2);
}

/** Each function's own non-idle samples over the profiles, by "name file:line", and their total. */
function selfSamples(files) {
  const byFunction = new Map();
  let total = 0;
  for (const file of files.split(',')) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    for (const id of profile.samples) {
      const { functionName, url, lineNumber } = nodes.get(id).callFrame;
      if (functionName === '(idle)') continue;
      total += 1;
      const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
    }
  }
  return { byFunction, total };
}

const a = selfSamples(filesA);
const b = selfSamples(filesB);
const perThousand = (samples, requests) => (samples * 1000) / Number(requests);
console.log(`samples per 1,000 requests: A ${perThousand(a.total, requestsA).toFixed(1)}, B ${perThousand(b.total, requestsB).toFixed(1)}`);
const rows = [...new Set([...a.byFunction.keys(), ...b.byFunction.keys()])].map((key) => {
  const inA = perThousand(a.byFunction.get(key) ?? 0, requestsA);
  const inB = perThousand(b.byFunction.get(key) ?? 0, requestsB);
  return { key, inA, inB, difference: inA - inB };
});
rows.sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference));
console.log('A\tB\tA - B\tfunction');
for (const row of rows.slice(0, Number(topArg))) console.log(`${row.inA.toFixed(1)}\t${row.inB.toFixed(1)}\t${row.difference.toFixed(1)}\t${row.key}`);
