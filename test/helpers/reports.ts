import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { TestApp, TestResponse } from './app.js';

/** The start of the report tests' clock: 2026-11-24T10:00:00Z. */
export const REPORT_EPOCH = Date.UTC(2026, 10, 24, 10, 0, 0);

/** An ISO time `seconds` after REPORT_EPOCH. */
export function at(seconds: number): string {
  return new Date(REPORT_EPOCH + seconds * 1000).toISOString();
}

/** A minimal report of `serialNumber` at `observedAt`, with a fresh reportId; `extra` adds sections. */
export function report(serialNumber: string, observedAt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { reportId: randomUUID(), serialNumber, observedAt, ...extra };
}

/** Creates an API key of a scope and returns its value. */
export async function createScopedKey(app: TestApp, scope: 'read' | 'read_write' | 'ingest', company = 'acme'): Promise<string> {
  return (await app.server.services.apiKeys.create({ companySlug: company, label: `${scope} key`, scope })).key;
}

/** POSTs a batch of reports (a body given as is when it is a string or a Buffer). */
export async function postReports(
  app: TestApp,
  key: string | null,
  body: unknown,
  options: { gzip?: boolean; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify({ reports: body });
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (options.gzip) headers['content-encoding'] = 'gzip';
  return app.request('/api/v1/reports', { method: 'POST', headers, body: options.gzip ? gzipSync(text) : text });
}
