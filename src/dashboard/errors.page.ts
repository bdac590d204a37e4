import { html } from './html.js';
import type { SafeHtml } from './html.js';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Page not found',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Temporarily unavailable',
};

/** The body of an error page: the status, a plain-language title, what to do, and the request id of a 500. */
export function renderErrorBody(status: number, message: string, requestId?: string): SafeHtml {
  return html`<section class="error-page">
  <p class="error-status">Error ${status}</p>
  <h1>${TITLES[status] ?? TITLES[status >= 500 ? 500 : 400]}</h1>
  <p class="lead">${message}</p>
  ${requestId ? html`<p class="muted">Request id: <code>${requestId}</code></p>` : ''}
  <p><a class="btn btn-secondary" href="/networks">Back to networks</a></p>
</section>`;
}
