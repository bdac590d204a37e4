import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';

/**
 * The headers of every dashboard response, and only these: no framing, no
 * inline script or style, forms post only here, no sniffing, no referrer to
 * other sites. Helmet's other headers are off: the dashboard sends what
 * README's "How sign-in is protected" documents, and Strict-Transport-Security
 * belongs to whoever terminates TLS (COOKIE_SECURE=on is the only HTTPS hint
 * netgraph gets). A literal without a type: helmet's CommonJS and ES module
 * declarations are unrelated types, and the plugin takes one, helmet() the other.
 */
const SECURITY_HEADERS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
      'object-src': ["'none'"],
    },
  },
  xFrameOptions: { action: 'deny' },
  xContentTypeOptions: true,
  referrerPolicy: { policy: 'same-origin' },
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xPoweredBy: false,
  xXssProtection: false,
} as const;

/** Sends the security headers on every response of the dashboard's context (and nowhere else: the plugin stays in that context). */
export async function registerSecurityHeaders(web: FastifyInstance): Promise<void> {
  await web.register(fastifyHelmet, SECURITY_HEADERS);
}

const applyHeaders = helmet(SECURITY_HEADERS);

/**
 * The same headers on a reply outside the dashboard's context: the app's
 * 404 handler, which answers a browser with the dashboard's page.
 */
export function setSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  applyHeaders(request.raw, reply.raw, (error) => {
    // helmet throws a configuration error when it is built, not here
    if (error) throw error;
  });
}
