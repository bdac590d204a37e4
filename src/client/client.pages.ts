import type { OperationInfo } from './client.documents.js';

/**
 * How to walk the pages of one paged root field. A pager turns the caller's
 * variables into the first page's, reads each page's items, and gives the
 * next page's variables (undefined after the last page). The event log pages
 * by offset (offsetPages); a root that pages by cursor fits the same shape
 * (cursorPages): only `next` differs.
 */
export interface Pager<Data, Variables, Item> {
  /** The first page's variables; `operation` says which variables the document declares. */
  start(variables: Variables, operation: OperationInfo): Variables;
  items(data: Data): readonly Item[];
  next(data: Data, variables: Variables): Variables | undefined;
}

/** The variables of a root paged by offset: the page size and how many items to skip. */
export interface OffsetVariables {
  readonly limit?: number | null;
  readonly offset?: number | null;
}

/** One page of a root paged by offset: its items, and how many there are on all pages when the root says. */
export interface OffsetPage<Item> {
  readonly items: readonly Item[];
  readonly total?: number | null;
}

/**
 * A pager by `limit` and `offset`: each next page starts after the items
 * received, until a page is short or the total is reached. The document
 * must declare both variables (else it would read the first page forever).
 */
export function offsetPages<Data, Item, Variables extends OffsetVariables>(
  page: (data: Data) => OffsetPage<Item> | null | undefined,
  defaultLimit: number,
): Pager<Data, Variables, Item> {
  return {
    start(variables, operation) {
      for (const name of ['limit', 'offset']) {
        if (!operation.variables.includes(name)) throw new TypeError(`netgraph client: a paged document must declare $${name} and pass it to the paged field.`);
      }
      return { ...variables, limit: variables.limit ?? defaultLimit, offset: variables.offset ?? 0 };
    },
    items: (data) => page(data)?.items ?? [],
    next(data, variables) {
      const current = page(data);
      const limit = variables.limit ?? defaultLimit;
      const offset = (variables.offset ?? 0) + (current?.items.length ?? 0);
      if (!current || current.items.length < limit || (typeof current.total === 'number' && offset >= current.total)) return undefined;
      return { ...variables, offset };
    },
  };
}

/**
 * A pager by cursor: each page says where the next one starts (`cursor`),
 * and whether there is one; the cursor goes into the variable `after`.
 * The change feed (changePages) pages this way.
 */
export function cursorPages<Data, Item, Variables extends { readonly after?: string | null }>(
  page: (data: Data) => { readonly items: readonly Item[]; readonly cursor: string | null; readonly hasMore?: boolean } | null | undefined,
): Pager<Data, Variables, Item> {
  return {
    start(variables, operation) {
      if (!operation.variables.includes('after')) throw new TypeError('netgraph client: a paged document must declare $after and pass it to the paged field.');
      return variables;
    },
    items: (data) => page(data)?.items ?? [],
    next(data, variables) {
      const current = page(data);
      if (!current || current.cursor === null || current.hasMore === false || current.items.length === 0) return undefined;
      return { ...variables, after: current.cursor };
    },
  };
}

/** The most events one page of recentEventLogEventsPage holds. */
export const EVENT_PAGE_LIMIT = 100;

/** What a document paged with eventLogPages answers. */
export interface EventLogData<Event> {
  readonly recentEventLogEventsPage: { readonly total: number; readonly events: readonly Event[] } | null;
}

/**
 * The pager of recentEventLogEventsPage: newest first, 100 a page. Offsets
 * move when events arrive while it pages, so when the document declares
 * `$endTime` and the caller gives none, it is pinned to when paging
 * started: new events then cannot push one already read onto the next page.
 */
export function eventLogPages<Event, Variables extends OffsetVariables & { readonly endTime?: string | null }>(): Pager<EventLogData<Event>, Variables, Event> {
  const byOffset = offsetPages<EventLogData<Event>, Event, Variables>(
    (data) => data.recentEventLogEventsPage && { items: data.recentEventLogEventsPage.events, total: data.recentEventLogEventsPage.total },
    EVENT_PAGE_LIMIT,
  );
  return {
    ...byOffset,
    start(variables, operation) {
      const first = byOffset.start(variables, operation);
      return operation.variables.includes('endTime') && first.endTime == null ? { ...first, endTime: new Date().toISOString() } : first;
    },
  };
}

/** What a document paged with changePages answers: the change feed's page (docs/changes.md). */
export interface ChangesData<Change> {
  readonly changes: { readonly changes: readonly Change[]; readonly endCursor: string | null; readonly hasMore: boolean } | null;
}

/**
 * The pager of the change feed: from the `after` given (null: the oldest
 * kept change) to the last change committed, each change once, in commit
 * order; the next page starts after the page's endCursor.
 */
export function changePages<Change, Variables extends { readonly after?: string | null }>(): Pager<ChangesData<Change>, Variables, Change> {
  return cursorPages<ChangesData<Change>, Change, Variables>(
    (data) => data.changes && { items: data.changes.changes, cursor: data.changes.endCursor, hasMore: data.changes.hasMore },
  );
}
