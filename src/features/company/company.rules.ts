/** The most characters of a slug. */
export const SLUG_MAX_LENGTH = 63;

/** Slugs: lowercase letters, digits and single hyphens, 1 to SLUG_MAX_LENGTH characters, safe in a URL as is. */
const SLUG_PATTERN = new RegExp(`^[a-z0-9](?:[a-z0-9-]{0,${SLUG_MAX_LENGTH - 2}}[a-z0-9])?$`);

/** True when `value` is a valid company or network slug. */
export function isSlug(value: string): boolean {
  return SLUG_PATTERN.test(value) && !value.includes('--');
}

/** How a valid slug looks, for error messages. */
export const SLUG_RULE = `lowercase letters, digits and single hyphens, 1 to ${SLUG_MAX_LENGTH} characters, e.g. "acme" or "hq-east"`;

/** A DNS name of two or more labels, lowercase: letters, digits and inner hyphens, each label 1 to 63 characters. */
const DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** True when `value` is a valid website domain, e.g. `acme.example`. */
export function isWebsiteDomain(value: string): boolean {
  return DOMAIN_PATTERN.test(value);
}

/** How a valid website domain looks, for error messages. */
export const DOMAIN_RULE = 'a lowercase domain name without scheme or path, e.g. "acme.example"';
