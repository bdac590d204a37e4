import type { ActiveSession } from '../features/user/user.service.js';
import { CSRF_FIELD } from './csrf.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';

/** Versioned asset URLs, so a deploy never serves a stale stylesheet from the browser cache. */
export interface AssetUrls {
  readonly css: string;
  readonly js: string;
  readonly icon: string;
  /** What a page with charts adds: uPlot's script and stylesheet, and web/charts.js that draws the page's series with them. */
  readonly charts: { readonly js: string; readonly uplotJs: string; readonly uplotCss: string };
}

/** What a page hands the shell. */
export interface PageOptions {
  readonly title: string;
  readonly assets: AssetUrls;
  /** The signed-in session; null renders the bare shell of the sign-in and error pages. */
  readonly session: ActiveSession | null;
  /** Which main navigation item is current. */
  readonly section?: 'networks' | 'settings';
  /** Replaces the address bar's URL once loaded, so a reload does not resubmit a form. */
  readonly replaceUrl?: string;
  /** The page has charts (charts.view.ts): load uPlot and web/charts.js. */
  readonly charts?: boolean;
  readonly body: SafeHtml;
}

/** The netgraph mark: three nodes, two links. */
export function logo(size: 'sm' | 'lg' = 'sm'): SafeHtml {
  return raw(
    `<svg class="logo logo-${size}" viewBox="0 0 24 24" aria-hidden="true"><circle cx="5" cy="12" r="2.5"/><circle cx="19" cy="5" r="2.5"/><circle cx="19" cy="19" r="2.5"/><path d="M7.2 11 16.8 6M7.2 13l9.6 5"/></svg>`,
  );
}

/** A hidden input with the session's CSRF token, for every form of a signed-in page. */
export function csrfInput(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

function topbar(session: ActiveSession, section: PageOptions['section']): SafeHtml {
  const item = (key: NonNullable<PageOptions['section']>, href: string, label: string) =>
    html`<a href="${href}"${section === key ? raw(' aria-current="page"') : ''}>${label}</a>`;
  const { user } = session;
  return html`<header class="topbar">
  <div class="topbar-inner">
    <a class="brand" href="/networks">${logo()}<span>netgraph</span></a>
    <span class="company" title="Your company">${user.companyName}</span>
    <nav class="mainnav" aria-label="Main">
      ${item('networks', '/networks', 'Networks')}
      ${item('settings', '/settings/integrations/api-keys', 'Settings')}
    </nav>
    <div class="account">
      <span class="account-email">${user.email}</span>
      <span class="badge ${user.role === 'admin' ? 'badge-accent' : 'badge-neutral'}">${user.role === 'admin' ? 'Admin' : 'Member'}</span>
      <form method="post" action="/sign-out">${csrfInput(session.csrfToken)}<button type="submit" class="btn btn-ghost btn-sm">Sign out</button></form>
    </div>
  </div>
</header>`;
}

/** The whole HTML document around a page's body. */
export function renderPage(options: PageOptions): string {
  const { assets, session } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${options.title} · netgraph</title>
<link rel="icon" href="${assets.icon}" type="image/svg+xml">
${options.charts ? html`<link rel="stylesheet" href="${assets.charts.uplotCss}">
` : ''}<link rel="stylesheet" href="${assets.css}">
<script src="${assets.js}" defer></script>
${options.charts ? html`<script src="${assets.charts.uplotJs}" defer></script>
<script src="${assets.charts.js}" defer></script>
` : ''}
</head>
<body${options.replaceUrl ? html` data-replace-url="${options.replaceUrl}"` : ''}>
${session ? topbar(session, options.section) : ''}
<main class="${session ? 'container' : 'container container-narrow'}">
${options.body}
</main>
</body>
</html>
`.value;
}

/** A page heading with optional breadcrumbs, description and actions on the right. */
export function pageHeader(options: {
  title: string;
  crumbs?: readonly { label: string; href?: string }[];
  description?: SafeHtml | string;
  actions?: SafeHtml;
}): SafeHtml {
  const crumbs = options.crumbs?.length
    ? html`<nav class="crumbs" aria-label="Breadcrumb">${options.crumbs.map((c, i) =>
        html`${i > 0 ? raw('<span class="crumb-sep">/</span>') : ''}${c.href ? html`<a href="${c.href}">${c.label}</a>` : html`<span>${c.label}</span>`}`,
      )}</nav>`
    : '';
  return html`<div class="page-header">
  <div>
    ${crumbs}
    <h1>${options.title}</h1>
    ${options.description ? html`<p class="lead">${options.description}</p>` : ''}
  </div>
  ${options.actions ? html`<div class="page-actions">${options.actions}</div>` : ''}
</div>`;
}

/** A message box: `error` for failures, `success` after an action, `warning` for what must not be missed. */
export function notice(kind: 'error' | 'success' | 'warning' | 'info', message: SafeHtml | string): SafeHtml {
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</div>`;
}

/** An empty state: a title and a line of what to do. */
export function emptyState(title: string, text: SafeHtml | string): SafeHtml {
  return html`<div class="empty"><p class="empty-title">${title}</p><p>${text}</p></div>`;
}

/** A status badge. */
export function badge(kind: 'success' | 'danger' | 'neutral' | 'warning' | 'accent', label: string): SafeHtml {
  return html`<span class="badge badge-${kind}">${label}</span>`;
}
