import { afterEach, describe, expect, it } from 'vitest';
import { withSessionSetting } from './postgres.js';

describe('withSessionSetting', () => {
  const saved = process.env.PGOPTIONS;
  afterEach(() => {
    if (saved === undefined) delete process.env.PGOPTIONS;
    else process.env.PGOPTIONS = saved;
  });

  it('adds the setting to a URL without options', () => {
    delete process.env.PGOPTIONS;
    const url = new URL(withSessionSetting('postgres://app:s%40cret@db.internal:5432/netgraph?sslmode=require', 'plan_cache_mode', 'force_generic_plan'));
    expect(url.searchParams.get('options')).toBe('-c plan_cache_mode=force_generic_plan');
    expect(url.searchParams.get('sslmode')).toBe('require');
    expect(url.password).toBe('s%40cret');
    expect(url.pathname).toBe('/netgraph');
  });

  it("keeps the URL's own options, before the setting", () => {
    process.env.PGOPTIONS = '-c work_mem=64MB';
    const url = new URL(withSessionSetting('postgres://localhost/netgraph?options=-c%20search_path%3Dtenant', 'plan_cache_mode', 'force_generic_plan'));
    expect(url.searchParams.get('options')).toBe('-c search_path=tenant -c plan_cache_mode=force_generic_plan');
  });

  it('keeps PGOPTIONS when the URL has no options', () => {
    process.env.PGOPTIONS = '-c work_mem=64MB';
    const url = new URL(withSessionSetting('postgres://localhost/netgraph', 'plan_cache_mode', 'force_generic_plan'));
    expect(url.searchParams.get('options')).toBe('-c work_mem=64MB -c plan_cache_mode=force_generic_plan');
  });

  it('leaves a string that is no URL as it is', () => {
    expect(withSessionSetting('not a url', 'plan_cache_mode', 'force_generic_plan')).toBe('not a url');
  });
});
