import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import type { AssetUrls } from './layout.js';

/** The dashboard's static files, in web/ at the repository root (two levels above src/web and dist/web). */
const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

const TYPES: Record<string, string> = {
  'app.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

/** One static file, read once at start. */
export interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

/** The assets and their versioned URLs. Only the files named here are served, so no path ever reaches the file system. */
export interface Assets {
  readonly urls: AssetUrls;
  get(name: string): Asset | undefined;
}

/** Reads web/app.css, web/app.js and web/favicon.svg; fails at start when one is missing. */
export function loadAssets(): Assets {
  const files = new Map<string, Asset>();
  for (const [name, type] of Object.entries(TYPES)) {
    const body = fs.readFileSync(`${WEB_DIR}${name}`);
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  // the version in the URL is the first 8 characters of the ETag
  const url = (name: string) => `/assets/${name}?v=${(files.get(name) as Asset).etag.slice(1, 9)}`;
  return {
    urls: { css: url('app.css'), js: url('app.js'), icon: url('favicon.svg') },
    get: (name) => files.get(name),
  };
}

/** The route of the static files. */
export const ASSET_ROUTE = '/assets/:name';

/**
 * GET /assets/:name. A URL with the current version is cached for a year
 * (a new deploy changes the version); any other is revalidated by ETag.
 */
export function registerAssetRoute(web: FastifyInstance, assets: Assets): void {
  web.get(ASSET_ROUTE, { config: { public: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const asset = assets.get(name);
    if (!asset) throw new AppError('NOT_FOUND', `There is no file /assets/${name}.`);
    const version = (request.query as Record<string, string | undefined>).v;
    reply.header('etag', asset.etag);
    reply.header('cache-control', version === asset.etag.slice(1, 9) ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });
}
