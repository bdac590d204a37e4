import { JSON_TYPE } from '../answer.js';

/** The media types a GraphQL result can be sent as. */
export type MediaType = 'application/json' | 'application/graphql-response+json';

const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

/**
 * Picks the response media type from Accept: application/graphql-response+json
 * when the client prefers it, application/json otherwise (also for a missing
 * Accept, `*\/*` and `application/*`); undefined when neither is acceptable.
 */
export function negotiate(accept: string | undefined): MediaType | undefined {
  if (accept === undefined || accept.trim() === '') return 'application/json';
  let best: { type: MediaType; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.split(';');
    const type = rawType?.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (!(q > 0)) continue;
    const candidate: MediaType | undefined =
      type === 'application/graphql-response+json'
        ? 'application/graphql-response+json'
        : type === 'application/json' || type === '*/*' || type === 'application/*'
          ? 'application/json'
          : undefined;
    if (candidate && (!best || q > best.q)) best = { type: candidate, q };
  }
  return best?.type;
}

/** The Content-Type header of a response sent as `mediaType`. */
export function contentTypeOf(mediaType: MediaType): string {
  return mediaType === 'application/json' ? JSON_TYPE : GRAPHQL_RESPONSE_TYPE;
}
