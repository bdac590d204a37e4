import { errorCodes } from 'fastify';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { JsonInputError, MAX_JSON_NESTING, findPrototypeKey, parseJsonText, prototypeKeyMessage } from '../kernel/json-input.js';
import type { PrototypeKey } from '../kernel/json-input.js';

/** A parsed JSON body, and the first prototype key it holds (found without a walk when its text cannot spell one). */
export interface ParsedJsonBody {
  readonly value: unknown;
  readonly prototypeKey: PrototypeKey | undefined;
}

/**
 * Parses a request body's JSON text with the errors of Fastify's own parser
 * (so answerForError maps them alike), except that a body nesting deeper
 * than MAX_JSON_NESTING gets a 400 saying so, and prototype keys are left
 * for the caller: `parseJsonBody` refuses them, a route that takes a batch
 * refuses only the items holding them.
 */
export function parseJsonBodyText(text: string): ParsedJsonBody {
  if (text.length === 0) throw new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
  try {
    const value = parseJsonText(text);
    return { value, prototypeKey: findPrototypeKey(value, '', text) };
  } catch (error) {
    if (!(error instanceof JsonInputError)) throw error;
    if (error.reason === 'too-deep') {
      throw new AppError('BAD_REQUEST', `The request body nests arrays and objects deeper than ${MAX_JSON_NESTING} levels: send a flatter body.`);
    }
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
}

/** A request body's JSON value; BAD_REQUEST naming the key and its path when it holds a prototype key anywhere. */
export function parseJsonBody(text: string): unknown {
  const parsed = parseJsonBodyText(text);
  if (parsed.prototypeKey !== undefined) throw new AppError('BAD_REQUEST', prototypeKeyMessage(parsed.prototypeKey));
  return parsed.value;
}

/**
 * Makes `parse` the JSON body parser of a Fastify instance (and the routes
 * registered in it), in place of Fastify's own: the app uses parseJsonBody,
 * the report route parseJsonBodyText.
 */
export function useJsonParser(instance: FastifyInstance, parse: (text: string) => unknown): void {
  instance.removeContentTypeParser('application/json');
  instance.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    let value: unknown;
    try {
      value = parse(text as string);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });
}
