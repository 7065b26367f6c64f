import { describe, expect, it } from 'vitest';
import { diffLine, renderHtmlPage } from '../../../src/preview/render-html.js';
import { pictureFileName, previewLinksMarkdown, type PlanPicture } from '../../../src/preview/plan-pictures.js';
import { charsFor } from '../../../src/preview/svg-text.js';

describe('the HTML page', () => {
  it('nests sections a heading level deeper, with their intro, picture, diff and environment', () => {
    const html = renderHtmlPage('T <1>', ['intro & more'], [
      { heading: 'dev · /e/dev', env: 'dev', intro: ['1 to create.'], sections: [{ heading: 'create A', svg: '<svg/>', lines: ['+ a', '- b', '~ c', 'd'] }, { heading: 'deep', sections: [{ heading: 'deeper', sections: [{ heading: 'x', sections: [{ heading: 'y', sections: [{ heading: 'z' }] }] }] }] }] },
      { heading: 'bare' },
    ]);
    expect(html).toContain('<title>T &lt;1&gt;</title>');
    expect(html).toContain('<p>intro &amp; more</p>');
    expect(html).toContain('<section data-env="dev"><h2>dev · /e/dev</h2>\n<p>1 to create.</p>\n<section><h3>create A</h3>\n<div class="picture"><svg/></div>\n<pre class="diff"><span class="add">+ a</span>\n<span class="remove">- b</span>\n<span class="change">~ c</span>\n<span class="other">d</span></pre>\n</section>');
    // Six levels at most, as HTML has.
    expect(html).toContain('<h4>deeper</h4>');
    expect(html).toContain('<h6>z</h6>');
    expect(html).toContain('<section><h2>bare</h2>\n</section>');
    expect(html).not.toContain('<pre class="diff"></pre>');
  });

  it('colours each diff line by its mark', () => {
    expect(['+x', '-x', '~x', ' x'].map(diffLine)).toEqual(['<span class="add">+x</span>', '<span class="remove">-x</span>', '<span class="change">~x</span>', '<span class="other"> x</span>']);
  });
});

describe('picture links', () => {
  const picture = (name: string, file: string): PlanPicture => ({ change: { action: 'create', id: 'i', name, file, desired: { dashboardMetadata: { name, owner: 'o' }, tiles: [] } }, fileName: pictureFileName(file), svg: '', diffLines: [] });

  it('lists each picture under a heading, linked under the base URL, names escaped', () => {
    expect(previewLinksMarkdown([], 'https://x')).toBe('');
    expect(previewLinksMarkdown([picture('A*b', 'dashboards/a b.yaml')], 'https://x/run', 'Layout previews: `dev`')).toBe('\n**Layout previews: `dev`**\n\n- [A\\*b](https://x/run/dashboards_a_b.yaml.png)\n');
    expect(previewLinksMarkdown([picture('A', 'a.yaml')], 'https://x/')).toBe('\n**Layout previews**\n\n- [A](https://x/a.yaml.png)\n');
  });
});

describe('charsFor', () => {
  it('fits characters of 0.6 em, at least one', () => {
    expect([charsFor(72, 12), charsFor(71.9, 12), charsFor(0, 12), charsFor(66, 11)]).toEqual([10, 9, 1, 10]);
  });
});
