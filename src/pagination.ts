import Joi from 'joi';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 15;

export interface Page<T> {
  data: T[];
  total: number;
  /** False when `total` is a lower bound: a search counted only up to SEARCH_COUNT_LIMIT (src/query.ts). */
  totalExact?: boolean;
  page: number;
  perPage: number;
}

/** `page` and `per_page` of every REST list; over 100 per page is a validation error, not a silent clamp. */
export const pageKeys = {
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
  per_page: Joi.number().integer().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
};

export function offsetOf(page: number, perPage: number): number {
  return (page - 1) * perPage;
}

/**
 * The Laravel paginator envelope: data, links {first,last,prev,next},
 * meta {current_page, from, last_page, path, per_page, to, total}, and total_exact (false: total is a lower bound).
 */
export function paginationEnvelope<T>(p: Page<T>, path: string, query: Record<string, unknown> = {}) {
  const lastPage = Math.max(1, Math.ceil(p.total / p.perPage));
  const url = (page: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && v !== null && v !== '' && k !== 'page') params.set(k, String(v));
    params.set('page', String(page));
    return `${path}?${params.toString()}`;
  };
  const from = p.data.length ? offsetOf(p.page, p.perPage) + 1 : null;
  return {
    data: p.data,
    links: {
      first: url(1),
      last: url(lastPage),
      prev: p.page > 1 ? url(p.page - 1) : null,
      next: p.page < lastPage ? url(p.page + 1) : null,
    },
    meta: {
      current_page: p.page,
      from,
      last_page: lastPage,
      path,
      per_page: p.perPage,
      to: from === null ? null : from + p.data.length - 1,
      total: p.total,
      total_exact: p.totalExact ?? true,
    },
  };
}
