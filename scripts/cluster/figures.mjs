// The chaos run's figures, computed from the recorded requests and faults.

/** A failed request: a 5xx, no answer at all (status 0), or a 200 whose body is an error (-200, e.g. a mutation's SERVICE_UNAVAILABLE). */
export function isFailure(status) {
  return status === 0 || status === -200 || status >= 500;
}

/** Requests answered by status ("0" for no answer, "200-wrong" for a 200 whose body was not the expected one). */
export function countByStatus(records) {
  const counts = {};
  for (const { status } of records) {
    const label = status === -200 ? '200-wrong' : String(status);
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** The longest run of failures in completion order with no success between them, in ms from its first to its last. */
export function longestFailureStretchMs(records) {
  const sorted = [...records].sort((a, b) => a.t1 - b.t1);
  let longest = 0;
  let start;
  for (const record of sorted) {
    if (isFailure(record.status)) {
      start ??= record.t1;
      longest = Math.max(longest, record.t1 - start);
    } else {
      start = undefined;
    }
  }
  return Math.round(longest);
}

/**
 * For each fault, the requests that failed with their answer (or its
 * absence) from its start until the next fault's start (a request in flight
 * when a process was killed counts for that kill), and the time from the
 * moment its dependency was back (`restoredAt`) to the last of those
 * failures: 0 when nothing failed after.
 */
export function recoveries(faults, records, endedAt) {
  return faults.map((fault, i) => {
    const until = faults[i + 1]?.startedAt ?? endedAt;
    let last = fault.restoredAt;
    let failures = 0;
    for (const record of records) {
      if (record.t1 < fault.startedAt || record.t1 >= until || !isFailure(record.status)) continue;
      failures += 1;
      last = Math.max(last, record.t1);
    }
    return {
      fault: fault.name,
      atSecond: Math.round(fault.startedAt / 100) / 10,
      outageMs: Math.round(fault.restoredAt - fault.startedAt),
      failedRequests: failures,
      recoveryMs: Math.round(last - fault.restoredAt),
    };
  });
}

/**
 * Requests of a revoked key served (200 with the expected answer: data, or the
 * report stored) although sent after its revocation was committed. A 200
 * carrying an error (a mutation during a database outage) served nothing.
 */
export function revokedAccepted(records, revokedAt) {
  return records.filter((r) => revokedAt.has(r.keyId) && r.t0 > revokedAt.get(r.keyId) && r.status === 200).length;
}
