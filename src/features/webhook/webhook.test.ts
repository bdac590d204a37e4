import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { serializePayload, MAX_PAYLOAD_BYTES } from './webhook.alerts.js';
import { createSecretBox, generateEncryptionKey, parseEncryptionKey } from './webhook.cipher.js';
import { RETRY_SCHEDULE_MS, retryDelay } from './webhook-delivery.service.js';
import { parseRetryAfter } from './webhook.http.js';
import { generateSigningSecret, webhookHeaders } from './webhook.signing.js';
import { isBlockedAddress } from './webhook.target.js';
import { meterSignature, toSnakeCase } from './webhook.meter.js';
import { emailOf, slackBodyOf } from './webhook.channels.js';

describe('webhook signing', () => {
  it('signs so that the reference implementation verifies, with every valid secret', () => {
    const [a, b] = [generateSigningSecret(), generateSigningSecret()];
    const body = '{"metadata":{"alert_name":"ALERT_TEST"},"data":{}}';
    const headers = webhookHeaders([a, b], 'msg_1', Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(a).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(b).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
  });
});

describe('webhook secrets at rest', () => {
  it('opens only with the same key and context', () => {
    const key = parseEncryptionKey(generateEncryptionKey()) as Buffer;
    const box = createSecretBox(key);
    const sealed = box.seal('whsec_abc', 'endpoint-1:signing');
    expect(sealed).not.toContain('whsec_');
    expect(box.open(sealed, 'endpoint-1:signing')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'endpoint-2:signing')).toThrow();
    expect(() => createSecretBox(parseEncryptionKey('ab'.repeat(32)) as Buffer).open(sealed, 'endpoint-1:signing')).toThrow();
    expect(parseEncryptionKey('short')).toBeUndefined();
  });
});

describe('webhook targets', () => {
  it('refuses loopback, private, link-local, metadata and reserved addresses, in every spelling', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip']) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isBlockedAddress(address), address).toBe(false);
  });
});

describe('webhook retries', () => {
  it('waits on the schedule with up to 10% jitter, longer when Retry-After asks, and stops after the last', () => {
    expect(RETRY_SCHEDULE_MS.map((_, i) => retryDelay(i + 1, null, () => 0))).toEqual([...RETRY_SCHEDULE_MS]);
    expect(retryDelay(1, null, () => 1)).toBe(5_500);
    expect(retryDelay(1, 60_000, () => 0)).toBe(60_000);
    expect(retryDelay(2, 1_000, () => 0)).toBe(300_000);
    expect(retryDelay(1, 7 * 86_400_000, () => 0)).toBe(86_400_000);
    expect(retryDelay(RETRY_SCHEDULE_MS.length + 1, null)).toBeNull();
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter(new Date(90_000).toUTCString(), 30_000)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
  });

  it('waits on a configured schedule instead, its length + 1 attempts in all, with the same jitter and Retry-After', () => {
    const schedule = [1_000, 2_000];
    expect([1, 2, 3].map((attempts) => retryDelay(attempts, null, () => 0, schedule))).toEqual([1_000, 2_000, null]);
    expect(retryDelay(2, null, () => 1, schedule)).toBe(2_200);
    expect(retryDelay(1, 60_000, () => 0, schedule)).toBe(60_000);
  });

  it('bounds a body, leaving out bulky details but keeping the ids', () => {
    const body = serializePayload({ metadata: { alert_name: 'ALERT_AUDIT_LOG', network_name: null, timestamp: 't' }, data: { objectId: 'x', before: 'a'.repeat(MAX_PAYLOAD_BYTES) } });
    expect(JSON.parse(body)).toEqual({ metadata: { alert_name: 'ALERT_AUDIT_LOG', network_name: null, timestamp: 't' }, data: { objectId: 'x', truncated: true } });
  });
});

describe("Meter's body", () => {
  it('signs with the secret string as shown: a known vector of hmac.new(secret.encode(), body, sha256).hexdigest()', () => {
    // python3 -c 'import hmac,hashlib; print(hmac.new(b"whsec_abc", b"{}", hashlib.sha256).hexdigest())'
    expect(meterSignature('whsec_abc', '{}')).toBe('a7e20c39a3bd9a0d00109906483a125cba27c676f9feabcde8702361770cc020');
  });

  it('names data members in snake_case', () => {
    expect(['networkUUID', 'virtualDeviceUUID', 'serialNumber', 'rebootReason', 'portNumber', 'clientCount', 'label'].map(toSnakeCase)).toEqual([
      'network_uuid', 'virtual_device_uuid', 'serial_number', 'reboot_reason', 'port_number', 'client_count', 'label',
    ]);
  });
});

describe('alert emails and Slack messages', () => {
  const payload = { metadata: { alert_name: 'Device offline', network_name: 'HQ\nsecond line', timestamp: '2026-11-25T09:31:30.000Z' }, data: { device_name: 'AP <1> & 2', port: { number: 1 } } };

  it('writes a one-line subject and a name: value body', () => {
    const mail = emailOf(payload, 'msg_1');
    expect(mail.subject).toBe('[netgraph] Device offline: HQ second line');
    expect(mail.text.split('\n')).toEqual(['Device offline: HQ', 'second line', '', 'network: HQ', 'second line', 'time: 2026-11-25T09:31:30.000Z', 'device_name: AP <1> & 2', 'port: {"number":1}', '', 'netgraph alert msg_1']);
  });

  it("takes Slack's incoming-webhook shape, with mrkdwn escaped", () => {
    const body = JSON.parse(slackBodyOf(payload, 'msg_1')) as { text: string; blocks: { type: string; text?: { type: string; text: string } }[] };
    expect(body.text).toBe('Device offline: HQ\nsecond line');
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'context']);
    expect(body.blocks[0]?.text).toEqual({ type: 'plain_text', text: 'Device offline' });
    expect(body.blocks[1]?.text?.text).toContain('device_name: AP &lt;1&gt; &amp; 2');
  });
});
