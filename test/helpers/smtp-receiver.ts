import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One email the SMTP server accepted, its headers and text decoded. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly subject: string;
  readonly text: string;
}

/** A real SMTP server on 127.0.0.1 (no TLS, no authentication) that keeps what it accepts. */
export interface SmtpReceiver {
  readonly url: string;
  readonly received: ReceivedMail[];
  /** The SMTP reply codes to refuse the next messages with (e.g. 451), in order; once used up, each is accepted. */
  refuse(...codes: number[]): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= and =?UTF-8?B?...?=) as text. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_all, kind: string, body: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(body, 'base64').toString('utf8')
        : Buffer.from(body.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    );
}

/** A single-part message's headers (unfolded, names in lower case) and its text, transfer encoding undone. */
function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  let body = raw.slice(split + 4);
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') {
    body = Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  } else if (encoding === 'base64') body = Buffer.from(body, 'base64').toString('utf8');
  return { headers, text: body.replace(/\r\n/g, '\n').trimEnd() };
}

/** Starts an SMTP server on a free port of 127.0.0.1. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const refusals: number[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const code = refusals.shift();
        if (code !== undefined) {
          callback(Object.assign(new Error('try again later'), { responseCode: code }));
          return;
        }
        const { headers, text } = parseMessage(Buffer.concat(chunks).toString('latin1'));
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), headers, subject: headers['subject'] ?? '', text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse: (...codes) => refusals.push(...codes),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`SMTP server got ${received.length} of ${count} messages`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
