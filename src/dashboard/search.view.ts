import { MAX_SEARCH_LENGTH } from '../features/client/client.search.js';
import { html, raw } from './html.js';
import type { SafeHtml } from './html.js';

/** Page numbers beyond this are refused: no list the dashboard pages holds that many pages. */
const MAX_PAGE = 10_000;

/** Which part of a long list a page shows: a search ('' for none) and a page (from 1). */
export interface ListQuery {
  readonly search: string;
  readonly page: number;
}

/** A list's query as the address asks for it, and why its search was not used (too long), if so. */
export interface ParsedListQuery {
  readonly query: ListQuery;
  /** The search as typed, shown back in the box (even when refused). */
  readonly typed: string;
  readonly problem?: string;
}

/**
 * The search and page of a long list from `?<name>=&<pageName>=` (the first
 * of `names` given). Undefined for a malformed page number (a 404, as a page
 * that is not there); a search longer than MAX_SEARCH_LENGTH is not run, and
 * says so.
 */
export function listQueryOf(params: Record<string, unknown>, names: readonly string[], pageName: string): ParsedListQuery | undefined {
  const rawPage = params[pageName];
  const page = rawPage === undefined ? 1 : typeof rawPage === 'string' && /^\d{1,5}$/.test(rawPage) ? Number(rawPage) : NaN;
  if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE) return undefined;
  const given = names.map((n) => params[n]).find((v) => v !== undefined);
  const typed = typeof given === 'string' ? given : '';
  if (typed.length > MAX_SEARCH_LENGTH) {
    return { query: { search: '', page: 1 }, typed: typed.slice(0, MAX_SEARCH_LENGTH), problem: `Search for at most ${MAX_SEARCH_LENGTH} characters: a MAC address, an IP address or a name fits.` };
  }
  return { query: { search: typed.trim(), page }, typed };
}

/** What a long list's form and pager need: where the list is and how it is asked for. */
export interface ListPlace {
  /** The page's path. */
  readonly base: string;
  /** The list's section id (the address's #fragment). */
  readonly anchor: string;
  /** The search's query parameter, and the page's. */
  readonly searchName: string;
  readonly pageName: string;
}

/** The address of `page` of the list for `search`, at the list. */
export function listUrl(place: ListPlace, search: string, page: number): string {
  const params = new URLSearchParams();
  if (search !== '') params.set(place.searchName, search);
  if (page > 1) params.set(place.pageName, String(page));
  const query = params.toString();
  return `${place.base}${query ? `?${query}` : ''}#${place.anchor}`;
}

/** A GET search form over a long list, with its problem under the box. */
export function renderSearchForm(place: ListPlace, parsed: ParsedListQuery, label: string, placeholder: string): SafeHtml {
  const id = `${place.anchor}-search`;
  return html`<form method="get" action="${place.base}#${place.anchor}" class="filters list-search" role="search">
  <div class="field"><label class="field-label" for="${id}">${label}</label><input type="search" name="${place.searchName}" id="${id}" value="${parsed.typed}" placeholder="${placeholder}" maxlength="${MAX_SEARCH_LENGTH}"${parsed.problem ? raw(` aria-invalid="true" aria-describedby="${id}-error"`) : ''}>${parsed.problem ? html`<span class="field-error" id="${id}-error">${parsed.problem}</span>` : ''}</div>
  <button type="submit" class="btn btn-secondary">Search</button>
  ${parsed.typed !== '' ? html`<a class="btn btn-ghost" href="${place.base}#${place.anchor}">Clear</a>` : ''}
</form>`;
}

/**
 * A long list's pager: Previous and Next, and "first–last of found (of all)
 * · page n of pages"; past the last page, a link back to it.
 */
export function renderListPager(place: ListPlace, query: ListQuery, pageSize: number, shown: number, found: number, all: number, label: string): SafeHtml {
  const pages = Math.max(1, Math.ceil(found / pageSize));
  const of = `${found}${found === all ? '' : ` (of ${all})`}`;
  if (query.page > pages) {
    return html`<nav class="pager list-pager" aria-label="${label}"><a class="btn btn-secondary btn-sm" href="${listUrl(place, query.search, pages)}" rel="prev">Last page</a><span class="field-help pager-status">Page ${query.page} is past the last page: ${of} in ${pages} ${pages === 1 ? 'page' : 'pages'}</span></nav>`;
  }
  const first = found === 0 ? 0 : (query.page - 1) * pageSize + 1;
  const last = first + shown - (shown > 0 ? 1 : 0);
  return html`<nav class="pager list-pager" aria-label="${label}">
  ${query.page > 1 ? html`<a class="btn btn-secondary btn-sm" href="${listUrl(place, query.search, query.page - 1)}" rel="prev">Previous</a>` : ''}
  ${query.page < pages ? html`<a class="btn btn-secondary btn-sm" href="${listUrl(place, query.search, query.page + 1)}" rel="next">Next</a>` : ''}
  <span class="field-help pager-status">${first}–${last} of ${of} · page ${query.page} of ${pages}</span>
</nav>`;
}
