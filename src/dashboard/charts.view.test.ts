import { describe, expect, it } from 'vitest';
import { alignSeries, renderChart } from './charts.view.js';
import type { ChartSpec } from './charts.view.js';
import { formatBytes, formatUptime } from './device.view.js';
import { statusColor } from './key-requests.view.js';

const spec = (series: ChartSpec['series']): ChartSpec => ({ id: 'q', title: 'Uplink quality', unit: '%', window: [0, 600], stepSeconds: 120, series });

describe('charts', () => {
  it('puts the series on one sorted time column, with null where a series has no bucket', () => {
    const aligned = alignSeries(spec([
      { label: 'WAN 1', points: [[240, 99], [0, 100]] },
      { label: 'WAN 2', points: [[120, 50]] },
    ]));
    expect(aligned.data).toEqual([[0, 120, 240], [100, null, 99], [null, 50, null]]);
    expect(aligned.labels).toEqual(['WAN 1', 'WAN 2']);
  });

  it('shows "No data in this window" without a data block when no series has a bucket', () => {
    const text = renderChart(spec([{ label: 'WAN 1', points: [] }])).value;
    expect(text).toContain('No data in this window');
    expect(text).not.toContain('<script');
  });

  it('escapes labels so that they cannot end the data block', () => {
    const text = renderChart(spec([{ label: '</script><img src=x onerror=alert(1)>&', points: [[0, 1]] }])).value;
    expect(text.match(/<\/script>/g)).toHaveLength(1);
    const json = /<script type="application\/json" class="chart-data">(.*)<\/script>/.exec(text)?.[1] as string;
    expect(JSON.parse(json).labels).toEqual(['</script><img src=x onerror=alert(1)>&']);
  });

  it('formats counters and uptimes as an administrator reads them', () => {
    expect([0, 1023, 1536, 5 * 1024 ** 3, 300 * 1024 ** 2].map(formatBytes)).toEqual(['0 B', '1023 B', '1.5 KB', '5.0 GB', '300 MB']);
    expect([59, 3600, 3900, 93_784, 10 * 86_400].map(formatUptime)).toEqual(['0 min', '1 h', '1 h 5 min', '1 d 2 h', '10 d']);
  });

  it("colours a request status by its class, whatever other series the chart has", () => {
    const statuses = [200, 204, 304, 400, 401, 403, 404, 413, 429, 500, 503];
    expect(statuses.map(statusColor)).toEqual(['green', 'green', 'gray', 'amber', 'pink', 'pink', 'amber', 'amber', 'purple', 'red', 'red']);
    // a fixed colour is the palette's index (web/charts.js), not the series' position
    const aligned = alignSeries(spec([{ label: '503', points: [[0, 1]], color: 'red' }, { label: '200', points: [[0, 9]], color: 'green' }, { label: 'x', points: [[0, 2]] }]));
    expect(aligned.styles).toEqual([{ color: 4, dashed: false }, { color: 1, dashed: false }, { color: 2, dashed: false }]);
  });
});
