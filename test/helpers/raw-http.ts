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
 * the whole response. Rejects when the server closes without answering or
 * does not answer within `timeoutMs`.
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
    // the server may answer (e.g. 401, 413) and close before it has read the whole body
    socket.on('error', (error) => (chunks.length > 0 ? undefined : reject(error)));
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

function parseResponse(data: Buffer): RawResponse {
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
