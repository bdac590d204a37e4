import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import type { AssetUrls } from './layout.js';

/** The dashboard's static files, in web/ at the repository root (two levels above src/web and dist/web). */
const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

/** uPlot's browser build and stylesheet, served as they are installed (node_modules/uplot/dist). */
const UPLOT_DIR = path.dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js')) + path.sep;

const CSS = 'text/css; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';

/** Every file the route serves, by name: its type and directory. */
const FILES: Record<string, { readonly type: string; readonly dir: string }> = {
  'app.css': { type: CSS, dir: WEB_DIR },
  'app.js': { type: JS, dir: WEB_DIR },
  'charts.js': { type: JS, dir: WEB_DIR },
  'favicon.svg': { type: 'image/svg+xml', dir: WEB_DIR },
  'uPlot.iife.min.js': { type: JS, dir: UPLOT_DIR },
  'uPlot.min.css': { type: CSS, dir: UPLOT_DIR },
};

/** One static file: its type, directory, and its ETag (a hash of its content at start). */
export interface Asset {
  readonly type: string;
  readonly dir: string;
  readonly etag: string;
}

/** The assets and their versioned URLs. Only the files named here are served, so no other path ever reaches the file system. */
export interface Assets {
  readonly urls: AssetUrls;
  get(name: string): Asset | undefined;
}

/** Hashes the files of web/ and uPlot's two; fails at start when one is missing. */
export function loadAssets(): Assets {
  const files = new Map<string, Asset>();
  for (const [name, { type, dir }] of Object.entries(FILES)) {
    const body = fs.readFileSync(`${dir}${name}`);
    files.set(name, { type, dir, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  // the version in the URL is the first 8 characters of the ETag
  const url = (name: string) => `/assets/${name}?v=${(files.get(name) as Asset).etag.slice(1, 9)}`;
  return {
    urls: {
      css: url('app.css'),
      js: url('app.js'),
      icon: url('favicon.svg'),
      charts: { js: url('charts.js'), uplotJs: url('uPlot.iife.min.js'), uplotCss: url('uPlot.min.css') },
    },
    get: (name) => files.get(name),
  };
}

/** The route of the static files. */
export const ASSET_ROUTE = '/assets/:name';

/**
 * GET /assets/:name, for the named files only (anything else is the
 * dashboard's 404 page). A URL with the current version is cached for a year
 * (a new deploy changes the version); any other is revalidated by ETag.
 * @fastify/static sends the file; what it would decide itself is switched
 * off, as this route decides it: its ETag (size and modification time, which
 * a new checkout changes for unchanged files) and Last-Modified give way to
 * the content hash the URL's version already is, its MIME table (which says
 * application/javascript) to the types above, its Cache-Control to the
 * versioned policy, and byte ranges of three small files are not offered.
 */
export async function registerAssetRoute(web: FastifyInstance, assets: Assets): Promise<void> {
  await web.register(fastifyStatic, {
    root: WEB_DIR,
    serve: false,
    etag: false,
    lastModified: false,
    contentType: false,
    cacheControl: false,
    acceptRanges: false,
  });
  web.get(ASSET_ROUTE, { config: { public: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const asset = assets.get(name);
    if (!asset) throw new AppError('NOT_FOUND', `There is no file /assets/${name}.`);
    const version = (request.query as Record<string, string | undefined>).v;
    reply.header('etag', asset.etag);
    reply.header('cache-control', version === asset.etag.slice(1, 9) ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).sendFile(name, asset.dir);
  });
}
