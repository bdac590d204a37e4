import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isPlainGraphQLRequest } from './graphql.endpoint.js';

const request = (method: string, url: string, contentType?: string) =>
  ({ method, url, headers: contentType === undefined ? {} : { 'content-type': contentType } }) as IncomingMessage;

describe('isPlainGraphQLRequest', () => {
  it('takes POST /api/v1/graphql with a JSON body', () => {
    for (const type of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
      expect(isPlainGraphQLRequest(request('POST', '/api/v1/graphql', type))).toBe(true);
    }
  });

  it("leaves everything else to Fastify's router", () => {
    expect(isPlainGraphQLRequest(request('GET', '/api/v1/graphql', 'application/json'))).toBe(false);
    expect(isPlainGraphQLRequest(request('POST', '/api/v1/graphql?x=1', 'application/json'))).toBe(false);
    expect(isPlainGraphQLRequest(request('POST', '/api/v1/graphql/', 'application/json'))).toBe(false);
    expect(isPlainGraphQLRequest(request('POST', '/api/v1/schema.graphql', 'application/json'))).toBe(false);
    for (const type of [undefined, '', 'text/plain', 'application/graphql', 'application/json; charset=latin1', 'application/jsonx']) {
      expect(isPlainGraphQLRequest(request('POST', '/api/v1/graphql', type))).toBe(false);
    }
  });
});
