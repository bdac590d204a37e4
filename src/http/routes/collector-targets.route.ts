import type { FastifyInstance } from 'fastify';
import type { Caller } from '../../kernel/caller.js';
import type { CollectorTargetService } from '../../features/collector-target/collector-target.service.js';
import type { CollectorRangeService } from '../../features/collector-range/collector-range.service.js';
import type { Admission } from '../admission.js';
import { JSON_TYPE, sendAnswer } from '../answer.js';
import { UNAUTHORIZED } from '../meter-answers.js';
import { admitOnRequest, limitHeadersOnSend } from './admission.hooks.js';

export const COLLECTOR_TARGETS_PATH = '/api/v1/collector/targets';
export const COLLECTOR_RANGES_PATH = '/api/v1/collector/ranges';

/**
 * GET /api/v1/collector/targets and GET /api/v1/collector/ranges
 * (docs/collector.md#targets-in-netgraph, #ranges-in-netgraph): the
 * company's collector targets, and the discovery ranges of the calling
 * collector, with their SNMP credentials opened, for a collector's ingest
 * key only, admitted as reports are (the same key, scope and window). The
 * answers are never cached and their bodies never logged.
 */
export function registerCollectorTargetsRoute(app: FastifyInstance, admission: Admission, targets: CollectorTargetService, ranges: CollectorRangeService): void {
  registerCollectorList(app, admission, COLLECTOR_TARGETS_PATH, async (caller) => ({ devices: await targets.forCollector(caller) }));
  registerCollectorList(app, admission, COLLECTOR_RANGES_PATH, async (caller) => ({ ranges: await ranges.forCollector(caller) }));
}

function registerCollectorList(app: FastifyInstance, admission: Admission, url: string, answer: (caller: Caller) => Promise<object>): void {
  app.route({
    method: 'GET',
    url,
    onRequest: admitOnRequest((authorization, context) => admission.admit(authorization, context)),
    onSend: limitHeadersOnSend(admission),
    handler: async (request, reply) => {
      const caller = request.netgraph.caller;
      if (caller === undefined) return sendAnswer(reply, UNAUTHORIZED);
      return reply.code(200).type(JSON_TYPE).header('cache-control', 'no-store').send(JSON.stringify(await answer(caller)));
    },
  });
}
