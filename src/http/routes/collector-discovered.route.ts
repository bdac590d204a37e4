import type { FastifyInstance } from 'fastify';
import { AppError } from '../../kernel/errors.js';
import { prototypeKeyMessage } from '../../kernel/json-input.js';
import { readFoundAgents } from '../../ingest/discovered.protocol.js';
import type { DiscoveredDeviceService } from '../../features/discovered-device/discovered-device.service.js';
import type { Admission } from '../admission.js';
import { JSON_TYPE, sendAnswer } from '../answer.js';
import { answerForError } from '../error-answer.js';
import type { ParsedJsonBody } from '../json-body.js';
import { UNAUTHORIZED } from '../meter-answers.js';
import { admitOnRequest, limitHeadersOnSend } from './admission.hooks.js';

/** Where a collector posts the agents its discovery sweeps found. */
export const COLLECTOR_DISCOVERED_PATH = '/api/v1/collector/discovered';
/** 1,000 agents with the longest sysDescr fit. */
const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/**
 * POST /api/v1/collector/discovered (docs/collector.md#discovery): the SNMP
 * agents a collector's sweep found, `{"devices": [...]}`, stored as the
 * company's discovered devices. For a collector's ingest key only, admitted
 * as reports are; a body that breaks any rule is refused whole (400), every
 * problem named. Answers `{"stored": n, "new": k}`.
 */
export function registerCollectorDiscoveredRoute(app: FastifyInstance, admission: Admission, discovered: DiscoveredDeviceService, classifyError: (error: unknown) => unknown): void {
  app.route({
    method: 'POST',
    url: COLLECTOR_DISCOVERED_PATH,
    bodyLimit: BODY_LIMIT_BYTES,
    onRequest: admitOnRequest((authorization, context) => admission.admit(authorization, context)),
    onSend: limitHeadersOnSend(admission),
    errorHandler: (error, request, reply) => sendAnswer(reply, answerForError(bodyError(error), { requestId: request.id, log: request.log, classify: classifyError })),
    handler: async (request, reply) => {
      const caller = request.netgraph.caller;
      if (caller === undefined) return sendAnswer(reply, UNAUTHORIZED);
      const parsed = request.body as ParsedJsonBody | undefined;
      if (parsed === undefined) throw new AppError('BAD_REQUEST', 'Send the discovered devices as application/json: {"devices": [...]}.');
      if (parsed.prototypeKey !== undefined) throw new AppError('BAD_REQUEST', prototypeKeyMessage(parsed.prototypeKey));
      const result = await discovered.record(caller, readFoundAgents(parsed.value));
      return reply.code(200).type(JSON_TYPE).send(JSON.stringify(result));
    },
  });
}

function bodyError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than 2 MiB: send fewer discovered devices per request.');
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new AppError('BAD_REQUEST', 'The request body is empty: send {"devices": [...]}.');
  return error;
}
