import type { Transporter } from 'nodemailer';
import type { Payload } from './webhook.alerts.js';
import { RESPONSE_PREFIX_BYTES } from './webhook.http.js';
import type { PostOutcome } from './webhook.http.js';

/** Where email targets' messages are sent from (SMTP_URL, SMTP_FROM). */
export interface SmtpSettings {
  /** smtp:// or smtps://, with user and password when the server wants them. */
  readonly url: string;
  /** The From address of every alert email. */
  readonly from: string;
}

/** The most characters of one Slack text object (a section allows 3,000); longer ones are cut with an ellipsis. */
const SLACK_TEXT_LIMIT = 2_900;

/** The lines that describe a message: its data's members, nested values as JSON. */
function dataLines(payload: Payload): string[] {
  return Object.entries(payload.data).map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

function headline(payload: Payload): string {
  const { alert_name: name, network_name: network } = payload.metadata;
  return network === null ? name : `${name}: ${network}`;
}

/** The subject and plain-text body of an alert email, from its message's body (Meter's shape). */
export function emailOf(payload: Payload, messageId: string): { subject: string; text: string } {
  const { network_name: network, timestamp } = payload.metadata;
  const text = [
    headline(payload),
    '',
    ...(network === null ? [] : [`network: ${network}`]),
    `time: ${timestamp}`,
    ...dataLines(payload),
    '',
    `netgraph alert ${messageId}`,
  ].join('\n');
  // a label may hold line breaks (labels are free text): a subject is one line
  return { subject: `[netgraph] ${headline(payload)}`.replace(/[\r\n\t]+/g, ' '), text };
}

/** Text for Slack's mrkdwn: &, < and > escaped as Slack asks, cut to SLACK_TEXT_LIMIT. */
function slackText(value: string): string {
  const escaped = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped.length <= SLACK_TEXT_LIMIT ? escaped : `${escaped.slice(0, SLACK_TEXT_LIMIT)}…`;
}

/**
 * The JSON an incoming webhook of Slack takes: `text` (the notification and
 * the fallback) and `blocks` (a header with the alert's name, a section with
 * the network, time and data, a context line with the message id).
 */
export function slackBodyOf(payload: Payload, messageId: string): string {
  const { alert_name: name, network_name: network, timestamp } = payload.metadata;
  const lines = [...(network === null ? [] : [`*network:* ${network}`]), `*time:* ${timestamp}`, ...dataLines(payload)];
  return JSON.stringify({
    text: slackText(headline(payload)),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: name.slice(0, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: slackText(lines.join('\n')) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: slackText(`netgraph alert ${messageId}`) }] },
    ],
  });
}

/** Sends alert emails through the configured SMTP server; one transport (and its connections) per process. */
export interface Mailer {
  /** Sends one email; the outcome's status is the SMTP reply code (250: accepted), as the delivery log records it. Never throws. */
  send(to: string, mail: { subject: string; text: string }, messageId: string): Promise<PostOutcome>;
}

/** A mailer over `smtp`, giving up on a server after `timeoutMs`. */
export function createMailer(smtp: SmtpSettings, timeoutMs: number): Mailer {
  let transport: Transporter | undefined;
  return {
    async send(to, mail, messageId) {
      // loaded on the first email: most processes never send one (a CLI command, a server without SMTP_URL)
      transport ??= (await import('nodemailer')).default.createTransport({ url: smtp.url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
      const started = performance.now();
      const took = () => Math.round(performance.now() - started);
      try {
        // the message id as a header: the same on every attempt and replay, so a mailbox can tell a retry from a new alert
        const info = (await transport.sendMail({ from: smtp.from, to, subject: mail.subject, text: mail.text, headers: { 'X-Netgraph-Message-Id': messageId } })) as { response?: string };
        const response = info.response ?? '250';
        return { status: Number(/^\d{3}/.exec(response)?.[0] ?? 250), durationMs: took(), response: response.slice(0, RESPONSE_PREFIX_BYTES), error: null, retryAfterMs: null };
      } catch (error) {
        const failure = error as { responseCode?: number; response?: string; code?: string; message?: string };
        return {
          status: typeof failure.responseCode === 'number' ? failure.responseCode : null,
          durationMs: took(),
          response: typeof failure.response === 'string' ? failure.response.slice(0, RESPONSE_PREFIX_BYTES) : null,
          error: failure.code ? `${failure.code}: ${failure.message ?? ''}` : (failure.message ?? 'SMTP error'),
          retryAfterMs: null,
        };
      }
    },
  };
}
