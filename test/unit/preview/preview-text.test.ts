import { describe, expect, it } from 'vitest';
import { charsFor, clip, escapeXml, EXCERPT_SOURCE_CHARS, markdownExcerpt, wrap } from '../../../src/preview/svg-text.js';
import { patchedPicture, pictureFileName, planPictures, previewLinksMarkdown } from '../../../src/preview/plan-pictures.js';
import type { Plan, PlanChange } from '../../../src/plan/build-plan.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';

describe('svg text helpers', () => {
  it('escapes markup and replaces what XML forbids: controls but tab and newline, DEL, U+FFFE/FFFF, lone surrogates', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(escapeXml('a\u0000b\u0008c\td\ne\u000bf\u000cg\rh\u000ei\u001fj\u007fk\ufffel\uffffm')).toBe('a\ufffdb\ufffdc\td\ne\ufffdf\ufffdg\rh\ufffdi\ufffdj\ufffdk\ufffdl\ufffdm');
    expect(escapeXml('😀 \ud83d x \ude00 y \ud83d\ud83d\ude00')).toBe('😀 \ufffd x \ufffd y \ufffd😀');
  });

  it('fits characters of a font size into a width, at least one', () => {
    expect([charsFor(60, 10), charsFor(65, 10), charsFor(1, 10)]).toEqual([10, 10, 1]);
  });

  it('clips to a number of code points, blanks folded, a cut marked with …', () => {
    expect(clip('  a \n b  ', 3)).toBe('a b');
    expect(clip('abcd', 4)).toBe('abcd');
    expect(clip('abcde', 4)).toBe('abc…');
    expect(clip('😀😀😀', 2)).toBe('😀…');
    expect(clip('abc', 1)).toBe('…');
    expect(clip('abc', 0)).toBe('');
    expect(clip('', 0)).toBe('');
  });

  it('wraps words greedily into lines of a width, a long word clipped, the last kept line marked when text was cut', () => {
    expect(wrap('aa bb cc', 5, 3)).toEqual(['aa bb', 'cc']);
    expect(wrap('  aa\n\tbb  ', 5, 3)).toEqual(['aa bb']);
    expect(wrap('abcdefgh ij', 4, 3)).toEqual(['abc…', 'ij']);
    expect(wrap('aa bb cc dd', 2, 2)).toEqual(['aa', 'b…']);
    expect(wrap('aa bb', 2, 2)).toEqual(['aa', 'bb']);
    expect(wrap('', 5, 2)).toEqual([]);
    expect(wrap('abc', 0, 2)).toEqual([]);
    expect(wrap('abc', 1, 0)).toEqual([]);
    expect(wrap('abc', 1, 1)).toEqual(['…']);
    expect(wrap(' aa bb ', 6, 2)).toEqual(['aa bb']);
  });

  it('reads markdown as a reader sees it', () => {
    expect(markdownExcerpt('```js\ncode\n```\n# Title\n  - item\n12. step\n> quote\n**bold** __b__ `c` ~~s~~ a*b snake_case')).toBe('code Title item step quote bold b c s a*b snake_case');
    expect(markdownExcerpt('![alt](img.png) [link](http://x) <b>html</b>')).toBe('alt link html');
    expect(markdownExcerpt('See [Foo (bar)](https://en.wikipedia.org/wiki/Foo_(bar)) and ![logo](https://x/a(1).png) now')).toBe('See Foo (bar) and logo now');
    expect(markdownExcerpt('```\nx```yz')).toBe('x');
    expect(markdownExcerpt('a ```b\nc')).toBe('a c');
    expect(markdownExcerpt('    - deep')).toBe('- deep');
    expect(markdownExcerpt('-item\n#tag\n1.5 x')).toBe('-item #tag 1.5 x');
    expect(markdownExcerpt('123. x\n## \theading')).toBe('x heading');
  });

  it('reads only the start of a long tile, and keeps a link or tag within it whole', () => {
    const head = `[docs](https://x) ${'word '.repeat(900)}`;
    expect(markdownExcerpt(`${head}${'<b>'.repeat(100_000)}`)).toBe(markdownExcerpt(`${head}${'<b>'.repeat(100_000)}`.slice(0, EXCERPT_SOURCE_CHARS)));
    expect(markdownExcerpt(`${'word '.repeat(500)}[more](y) <b>x</b>`)).toBe(`${'word '.repeat(500)}more x`);
    // What a writer of the target can store in a tile, which the console draws at each view: each pattern once over it.
    for (const flood of ['<', '[', '![', '[](']) expect(markdownExcerpt(flood.repeat(1_000_000)).length).toBeLessThanOrEqual(EXCERPT_SOURCE_CHARS);
  });
});

const dashboard = (name: string): Dashboard => ({ dashboardMetadata: { name, owner: 'o' }, tiles: [{ name: 'T', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown: 'x' }] });

describe('plan pictures', () => {
  const update: PlanChange = {
    action: 'update',
    id: 'u',
    name: 'U',
    file: 'dashboards/u.yaml',
    desired: dashboard('U'),
    patch: [{ op: 'replace', path: '/dashboardMetadata/name', value: 'U' }],
    before: ['Old'],
  };
  const plan = (changes: PlanChange[]): Plan => ({ changes } as unknown as Plan);

  it('draws one picture per update and create, named for the file, and none for other actions', () => {
    const pictures = planPictures(plan([
      update,
      { action: 'create', id: 'c', name: 'C', file: 'dashboards/team a/c.yaml', desired: dashboard('C') },
      { action: 'unchanged', id: 's', name: 'S', file: 's.yaml' },
      { action: 'delete', id: 'd', name: 'D' },
    ]));
    expect(pictures.map((p) => [p.change.id, p.fileName, p.diffLines.length > 0])).toEqual([
      ['u', 'dashboards_u.yaml.png', true],
      ['c', 'dashboards_team_a_c.yaml.png', false],
    ]);
    expect(pictures.every((p) => p.svg.startsWith('<svg'))).toBe(true);
  });

  it("an update's picture has the live name above and the file's below, and its diff", () => {
    const picture = patchedPicture(update as Extract<PlanChange, { action: 'update' }>);
    expect(picture.svg).toContain('Old');
    expect(picture.svg).toContain('>U<');
    expect(picture.diffLines.join('\n')).toContain('Old');
  });

  it('names a picture file by the path with each run of other characters one _', () => {
    expect(pictureFileName('a/b c//d.yaml')).toBe('a_b_c_d.yaml.png');
  });

  it('links the pictures under a heading, names escaped for markdown', () => {
    const pictures = planPictures(plan([{ ...update, name: 'A*b [x] `y`\nz' }]));
    expect(previewLinksMarkdown(pictures, 'https://h/p')).toBe('\n**Layout previews**\n\n- [A\\*b \\[x\\] \\`y\\` z](https://h/p/dashboards_u.yaml.png)\n');
    expect(previewLinksMarkdown(pictures, 'https://h/p/', 'Pictures')).toBe('\n**Pictures**\n\n- [A\\*b \\[x\\] \\`y\\` z](https://h/p/dashboards_u.yaml.png)\n');
    expect(previewLinksMarkdown([], 'https://h/')).toBe('');
    const two = planPictures(plan([update, { ...update, id: 'v', name: 'V', file: 'v.yaml' }]));
    expect(previewLinksMarkdown(two, 'https://h')).toBe('\n**Layout previews**\n\n- [U](https://h/dashboards_u.yaml.png)\n- [V](https://h/v.yaml.png)\n');
  });
});
