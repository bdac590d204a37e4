import { TEXT_MAX } from '../../kernel/rules.js';
import { isUuid } from '../../kernel/formats.js';
import { RECEIVER_ALERT_TYPES, isEmailAddress } from '../../features/alert/alert.service.js';
import type { SecurityValidator } from './import.security.js';

/**
 * A company's alert receiver in the import format (docs/import-format.md):
 * its label, EMAIL targets and rules. WEBHOOK targets (webhook endpoints
 * are not in the format) and SLACK targets (their URL is a secret, never
 * written out) are left out of exports and refused by imports.
 */
export interface ImportAlertReceiver {
  UUID?: string;
  label: string;
  targets: { type: 'EMAIL'; emailAddress: string }[];
  /** An alert for the listed networks of the company in the file; networkUUIDs absent: every network. */
  rules: { alert: string; networkUUIDs?: string[] }[];
}

const MAX_TARGETS = 20;
const MAX_RULES = 100;

/** The company's `alertReceivers`, checked; absent when the document has none. */
export function validateAlertReceivers(v: SecurityValidator, value: unknown, path: string, uuids: Set<string>, networkUuids: ReadonlySet<string>): ImportAlertReceiver[] {
  const labels = new Set<string>();
  return (v.array(value, path) ?? []).map((item, i) => {
    const at = `${path}[${i}]`;
    const r = v.object(item, at) ?? {};
    let uuid: string | undefined;
    if (r.UUID !== undefined) {
      uuid = v.matching(r.UUID, `${at}.UUID`, isUuid, 'a lowercase UUID');
      v.unique(uuids, uuid, `${at}.UUID`, 'UUID');
    }
    const label = v.string(r.label, `${at}.label`, TEXT_MAX.alertReceiverLabel);
    v.unique(labels, label, `${at}.label`, 'alert receiver label');
    return { ...(uuid === undefined ? {} : { UUID: uuid }), label, targets: targets(v, r.targets, `${at}.targets`), rules: rules(v, r.rules, `${at}.rules`, networkUuids) };
  });
}

function targets(v: SecurityValidator, value: unknown, path: string): ImportAlertReceiver['targets'] {
  const list = v.array(value, path) ?? [];
  if (list.length === 0 || list.length > MAX_TARGETS) v.fail(path, `must list 1 to ${MAX_TARGETS} targets`);
  const addresses = new Set<string>();
  return list.map((item, i) => {
    const at = `${path}[${i}]`;
    const t = v.object(item, at) ?? {};
    if (t.type !== 'EMAIL') {
      v.fail(`${at}.type`, `${JSON.stringify(t.type) ?? 'undefined'} is not valid: the import format takes EMAIL targets only (add WEBHOOK and SLACK targets with createAlertReceiver or the dashboard)`);
      return { type: 'EMAIL' as const, emailAddress: '' };
    }
    const emailAddress = isEmailAddress(t.emailAddress) ? t.emailAddress : '';
    if (emailAddress === '') v.fail(`${at}.emailAddress`, `${JSON.stringify(t.emailAddress) ?? 'undefined'} is not an email address such as noc@example.com`);
    v.unique(addresses, emailAddress.toLowerCase(), `${at}.emailAddress`, 'email address');
    return { type: 'EMAIL' as const, emailAddress };
  });
}

function rules(v: SecurityValidator, value: unknown, path: string, networkUuids: ReadonlySet<string>): ImportAlertReceiver['rules'] {
  const list = v.array(value, path) ?? [];
  if (list.length === 0 || list.length > MAX_RULES) v.fail(path, `must list 1 to ${MAX_RULES} rules`);
  const alerts = new Set<string>();
  return list.map((item, i) => {
    const at = `${path}[${i}]`;
    const r = v.object(item, at) ?? {};
    const alert = v.oneOf(r.alert, `${at}.alert`, RECEIVER_ALERT_TYPES);
    v.unique(alerts, alert, `${at}.alert`, 'alert');
    if (r.networkUUIDs === undefined || r.networkUUIDs === null) return { alert };
    const networks = (v.array(r.networkUUIDs, `${at}.networkUUIDs`) ?? []).map((uuid, j) => {
      if (typeof uuid === 'string' && networkUuids.has(uuid)) return uuid;
      v.fail(`${at}.networkUUIDs[${j}]`, `${JSON.stringify(uuid) ?? 'undefined'} is not valid: expected the UUID of one of the company's networks in the file`);
      return '';
    });
    if (networks.length === 0) v.fail(`${at}.networkUUIDs`, 'must list at least one network, or be left out for every network');
    return { alert, networkUUIDs: [...new Set(networks)] };
  });
}
