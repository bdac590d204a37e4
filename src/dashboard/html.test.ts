import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw } from './html.js';

describe('html templates', () => {
  it('escape every interpolated value, in text and attributes', () => {
    const label = `"><script>alert('x')</script>&`;
    expect(html`<td title="${label}">${label}</td>`.value).toBe(
      '<td title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</td>',
    );
  });

  it('insert nested templates and raw markup as they are, join arrays, and drop null, undefined and false', () => {
    const items = ['a<', 'b'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}${raw('<br>')}`.value).toBe('<ul><li>a&lt;</li><li>b</li></ul>0<br>');
  });

  it('escapes the five characters that matter', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
