import type { IncomingMessage } from 'node:http';

/**
 * The address of the client a request came from, for the request log and API
 * keys' allowlists (and their last-used address). With
 * TRUST_PROXY it is the first (left-most) address of X-Forwarded-For, which is
 * what Fastify's `trustProxy: true` makes `request.ip` (the address the sign-in
 * lockout counts), so both routes log the same address; otherwise the peer's.
 * The proxy must overwrite the header, not append to it (docs/operations.md):
 * a left-most address sent by the client itself would be believed.
 */
export function clientAddress(request: IncomingMessage, trustProxy: boolean): string | undefined {
  const forwarded = trustProxy ? request.headers['x-forwarded-for'] : undefined;
  if (typeof forwarded === 'string') {
    const first = forwarded.split(',')[0]?.trim();
    if (first) return first;
  }
  return request.socket.remoteAddress;
}
