import net from 'node:net';

/** A request as bytes on the wire: nothing is validated or normalised, so tests can send what clients must not. */
export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Header lines exactly as sent (name, value); duplicates and odd values allowed. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** Leave out Content-Length (e.g. to send a chunked body built by hand). */
  readonly omitContentLength?: boolean;
}

/** A response as read off the socket. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/**
 * Sends one request over a fresh connection (`Connection: close`) and reads
 * the whole response. Rejects when the server closes without answering, resets
 * the connection (even after answering), or does not answer within `timeoutMs`.
 */
export function sendRaw(host: string, port: number, request: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    // any reset fails: a server that answers before the whole body (401, 413) reads the rest before it closes
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    socket.on('connect', () => {
      const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: close'];
      for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
      if (!request.omitContentLength) lines.push(`Content-Length: ${request.body.length}`);
      socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), request.body]));
    });
  });
}

/** The response in `data`, read off a socket; throws when there is no complete head. */
export function parseResponse(data: Buffer): RawResponse {
  let raw = data;
  // an interim answer (100 Continue) comes before the real one
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 16).toString('latin1'))) raw = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response (${raw.length} bytes): ${JSON.stringify(raw.subarray(0, 200).toString('latin1'))}`);
  const [statusLine = '', ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`no status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** A request whose body is written piece by piece, as a client uploading a large body does. */
export interface StreamedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
  /** Bytes of body to send (a run of `x`). */
  readonly bodyBytes: number;
  /** Send the body chunked, with no Content-Length. */
  readonly chunked?: boolean;
  /** Bytes per write; 64 KiB unless told. */
  readonly writeBytes?: number;
}

/** What a client that sends its whole body, whatever the server answers meanwhile, saw. */
export interface StreamedOutcome {
  /** The answer, when one could be parsed from what was read. */
  readonly response?: RawResponse;
  /** A socket error (ECONNRESET, EPIPE) seen before the connection closed, if any. */
  readonly error?: string;
  /** Body bytes the client got to write before the connection ended. */
  readonly sentBytes: number;
}

/**
 * Sends one request over a fresh connection and writes its whole body,
 * a write at a time after the previous one was taken, whether or not the
 * server has answered (as clients that read only once they have sent do);
 * then half-closes and reads until the server closes. Never rejects: socket errors are
 * reported in the outcome, for tests that require there be none.
 */
export function sendStreamed(host: string, port: number, request: StreamedRequest, timeoutMs = 60_000): Promise<StreamedOutcome> {
  return new Promise((resolve) => {
    // half-open: the client goes on sending after the server's FIN, as a client that has not read yet does
    const socket = net.connect({ host, port, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let sentBytes = 0;
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no end within ${timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (cause: Error & { code?: string }) => (error ??= cause.code ?? cause.message));
    let writing = true;
    // the server is done: end too, unless still sending (the body's end ends the connection then)
    socket.on('end', () => (writing ? undefined : socket.end()));
    socket.on('close', () => {
      let response: RawResponse | undefined;
      try {
        response = parseResponse(Buffer.concat(chunks));
      } catch {
        response = undefined;
      }
      resolve({ ...(response ? { response } : {}), ...(error ? { error } : {}), sentBytes });
    });
    socket.on('connect', () => {
      const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${host}:${port}`];
      for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
      lines.push(request.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${request.bodyBytes}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
      void writeBody(socket, request, (bytes) => (sentBytes += bytes)).finally(() => {
        writing = false;
        if (socket.readableEnded) socket.end();
      });
    });
  });
}

async function writeBody(socket: net.Socket, request: StreamedRequest, sent: (bytes: number) => void): Promise<void> {
  const piece = Buffer.alloc(request.writeBytes ?? 64 * 1024, 'x');
  let left = request.bodyBytes;
  while (left > 0 && socket.writable) {
    const data = piece.subarray(0, Math.min(left, piece.length));
    const framed = request.chunked ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data;
    const taken = await new Promise<boolean>((resolve) => socket.write(framed, (cause) => resolve(cause == null)));
    if (!taken) return;
    sent(data.length);
    left -= data.length;
  }
  if (left > 0) return;
  if (request.chunked && socket.writable) socket.write('0\r\n\r\n');
  // all sent: nothing more comes from this client (a server keeping the connection open closes it now)
  if (socket.writable) socket.end();
}
