import { TEXT_MAX } from '../../kernel/rules.js';
import { AppError } from '../../kernel/errors.js';
import { notFound, requireOneOf, requireText, requireUuid } from '../../platform/write/write.rules.js';
import { ALERT_TYPES } from './webhook.alerts.js';
import type { AlertType } from './webhook.alerts.js';
import type { PayloadFormat } from './webhook.meter.js';
import type { EndpointRow, RuleRow, RuleValues, WebhookRepository } from './webhook.repository.js';

/** Which alerts of which networks go to an endpoint. */
export interface RuleInput {
  readonly alert: string;
  /** The networks (UUIDs) of the caller's company; null or absent: all of them, those made later too. */
  readonly networks?: readonly string[] | null;
  /** CLIENT_COUNT_ABOVE: fires when a network's connected clients go above this; no other alert takes one. */
  readonly threshold?: number | null;
}

/** An endpoint's Authorization header: none, Basic (user name and password) or Bearer (a token). */
export interface AuthorizationInput {
  readonly kind: 'NONE' | 'BASIC' | 'BEARER';
  readonly username?: string | null;
  readonly password?: string | null;
  readonly token?: string | null;
}

/** A rule as shown. */
export interface RuleInfo {
  readonly alert: AlertType;
  /** null: every network. */
  readonly networks: readonly string[] | null;
  readonly threshold: number | null;
}

/** An endpoint as the API, the CLI and the audit log show it: never a secret or an Authorization value. */
export interface EndpointInfo {
  readonly id: string;
  readonly label: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly authorization: 'NONE' | 'BASIC' | 'BEARER';
  /** GONE (the receiver answered 410) or FAILING (failing for 5 days) when netgraph turned it off; null otherwise. */
  readonly disabledReason: string | null;
  /** Since when every attempt failed; null when the last one succeeded. */
  readonly failingSince: string | null;
  readonly createdAt: string;
  /** The body its messages carry: STANDARD or METER (Meter's names and snake_case data, X-Meter-Signature). */
  readonly payloadFormat: 'STANDARD' | 'METER';
  readonly rules: readonly RuleInfo[];
}

const MAX_RULES = 100;
const MAX_NETWORKS = 1_000;
const AUTH_KINDS = ['NONE', 'BASIC', 'BEARER'] as const;

/** Checks the rules and resolves their networks in the company; UNAUTHORIZED naming the network for one it does not have. */
export async function checkRules(repository: WebhookRepository, companyId: number, rules: unknown): Promise<RuleValues[]> {
  if (!Array.isArray(rules) || rules.length === 0 || rules.length > MAX_RULES) {
    throw new AppError('BAD_USER_INPUT', `rules must list 1 to ${MAX_RULES} alerts, e.g. DEVICE_OFFLINE.`, { field: 'rules' });
  }
  const out: RuleValues[] = [];
  for (const [i, rule] of (rules as RuleInput[]).entries()) {
    const alert = requireOneOf(rule.alert, `rules[${i}].alert`, ALERT_TYPES);
    const threshold = checkThreshold(alert, rule.threshold, `rules[${i}].threshold`);
    const networks = rule.networks ?? null;
    if (networks === null) {
      out.push({ alertType: alert, networkId: null, threshold });
      continue;
    }
    if (!Array.isArray(networks) || networks.length === 0 || networks.length > MAX_NETWORKS) {
      throw new AppError('BAD_USER_INPUT', `rules[${i}].networks must list 1 to ${MAX_NETWORKS} network UUIDs, or be null for all.`, { field: `rules[${i}].networks` });
    }
    const uuids = networks.map((uuid, j) => requireUuid(uuid, `rules[${i}].networks[${j}]`));
    const ids = await repository.networkIds(companyId, uuids);
    for (const [j, uuid] of uuids.entries()) {
      const id = ids.get(uuid);
      if (id === undefined) throw notFound(`rules[${i}].networks[${j}]`);
      out.push({ alertType: alert, networkId: id, threshold });
    }
  }
  return out;
}

function checkThreshold(alert: AlertType, value: unknown, field: string): number | null {
  if (alert !== 'CLIENT_COUNT_ABOVE') {
    if (value === undefined || value === null) return null;
    throw new AppError('BAD_USER_INPUT', `${field} applies to CLIENT_COUNT_ABOVE only: leave it out for ${alert}.`, { field });
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 1_000_000) return value;
  throw new AppError('BAD_USER_INPUT', `${field} must be a whole number of clients from 0 to 1000000 for CLIENT_COUNT_ABOVE.`, { field });
}

/** The stored body format of a `payloadFormat` input: STANDARD or METER. */
export function checkPayloadFormat(value: unknown): PayloadFormat {
  return requireOneOf(value, 'payloadFormat', ['STANDARD', 'METER'] as const) === 'METER' ? 'meter' : 'standard';
}

/** The stored kind and the plain value to seal (null for none). */
export function checkAuthorization(value: unknown): { kind: 'none' | 'basic' | 'bearer'; plain: string | null } {
  if (value === undefined || value === null) return { kind: 'none', plain: null };
  const input = value as AuthorizationInput;
  const kind = requireOneOf(input.kind, 'authorization.kind', AUTH_KINDS);
  if (kind === 'NONE') return { kind: 'none', plain: null };
  if (kind === 'BEARER') return { kind: 'bearer', plain: requireToken(input.token, 'authorization.token') };
  const username = requireText(input.username, 'authorization.username', TEXT_MAX.webhookUsername);
  if (username.includes(':')) throw new AppError('BAD_USER_INPUT', 'authorization.username must not contain ":" (Basic authorization).', { field: 'authorization.username' });
  return { kind: 'basic', plain: `${username}:${requireToken(input.password, 'authorization.password')}` };
}

/** A header-safe secret value: visible ASCII, 1 to 1000 characters. */
function requireToken(value: unknown, field: string): string {
  if (typeof value === 'string' && /^[\x21-\x7e]{1,1000}$/.test(value)) return value;
  throw new AppError('BAD_USER_INPUT', `${field} must be 1 to 1000 visible ASCII characters.`, { field });
}

/** An endpoint as shown, with its rules (grouped back by alert and threshold). */
export function toEndpointInfo(row: EndpointRow, rules: readonly RuleRow[]): EndpointInfo {
  const grouped = new Map<string, { alert: AlertType; networks: string[] | null; threshold: number | null }>();
  for (const rule of rules.filter((r) => r.endpointId === row.id)) {
    const key = `${rule.alertType}/${rule.networkUuid === null ? 'all' : 'some'}/${rule.threshold ?? ''}`;
    const group = grouped.get(key) ?? { alert: rule.alertType as AlertType, networks: rule.networkUuid === null ? null : [], threshold: rule.threshold };
    if (rule.networkUuid !== null) group.networks?.push(rule.networkUuid);
    grouped.set(key, group);
  }
  return {
    id: row.uuid,
    label: row.label,
    url: row.url,
    enabled: row.enabled,
    authorization: row.authKind.toUpperCase() as EndpointInfo['authorization'],
    disabledReason: row.disabledReason,
    failingSince: row.failingSince,
    createdAt: row.createdAt,
    payloadFormat: row.payloadFormat === 'meter' ? 'METER' : 'STANDARD',
    rules: [...grouped.values()],
  };
}
