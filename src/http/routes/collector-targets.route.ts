import type { FastifyInstance } from 'fastify';
import type { CollectorTargetService } from '../../features/collector-target/collector-target.service.js';
import type { Admission } from '../admission.js';
import { JSON_TYPE, sendAnswer } from '../answer.js';
import { UNAUTHORIZED } from '../meter-answers.js';
import { admitOnRequest, limitHeadersOnSend } from './admission.hooks.js';

export const COLLECTOR_TARGETS_PATH = '/api/v1/collector/targets';

/**
 * GET /api/v1/collector/targets (docs/collector.md#targets-in-netgraph): the
 * company's collector targets with their SNMP credentials opened, for a
 * collector's ingest key only, admitted as reports are (the same key, scope
 * and window). The answer is never cached and its body never logged.
 */
export function registerCollectorTargetsRoute(app: FastifyInstance, admission: Admission, targets: CollectorTargetService): void {
  app.route({
    method: 'GET',
    url: COLLECTOR_TARGETS_PATH,
    onRequest: admitOnRequest((authorization, context) => admission.admit(authorization, context)),
    onSend: limitHeadersOnSend(admission),
    handler: async (request, reply) => {
      const caller = request.netgraph.caller;
      if (caller === undefined) return sendAnswer(reply, UNAUTHORIZED);
      const devices = await targets.forCollector(caller);
      return reply.code(200).type(JSON_TYPE).header('cache-control', 'no-store').send(JSON.stringify({ devices }));
    },
  });
}
