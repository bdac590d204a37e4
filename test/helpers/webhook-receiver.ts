import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** One request a receiver got. */
export interface ReceivedWebhook {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly path: string;
  /** When the request had arrived (its body read), and when it was answered: performance.now() ms. */
  readonly receivedAt: number;
  answeredAt: number | undefined;
}

/** What a receiver answers: a status, and headers or a body when given. */
export interface ReceiverAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** A webhook receiver on 127.0.0.1: records every request, answers from a script (then 200). */
export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** The answers to the next requests, in order; once used up, 200. */
  answer(...answers: ReceiverAnswer[]): void;
  /** Holds every answer until `release()` (a delivery in flight). */
  hold(): void;
  release(): void;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const script: ReceiverAnswer[] = [];
  let held: (() => void)[] | undefined;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      const got: ReceivedWebhook = { headers, body: Buffer.concat(chunks).toString('utf8'), path: request.url ?? '/', receivedAt: performance.now(), answeredAt: undefined };
      received.push(got);
      const answer = script.shift() ?? { status: 200 };
      const send = () => {
        got.answeredAt = performance.now();
        response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? 'ok');
      };
      if (held) held.push(send);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (...answers) => script.push(...answers),
    hold: () => {
      held = [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const send of waiting) send();
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} deliveries: ${received.map((r) => r.body).join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
