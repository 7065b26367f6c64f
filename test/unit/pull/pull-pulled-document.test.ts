import { describe, expect, it } from 'vitest';
import { pulledDocument, type PulledDocument } from '../../../src/pull/pulled-document.js';
import type { LiveDocumentBody } from '../../../src/schema/document-content.js';

const TAG = 'managed-by:dashcd';
const CONTENT = { version: 21, variables: [], tiles: { '0': { type: 'markdown', content: '# Checkout' } }, layouts: { '0': { x: 0, y: 0, w: 24, h: 2 } } };

function live(block: Record<string, unknown>, content: Record<string, unknown> = CONTENT): LiveDocumentBody {
  return { document: { kind: 'dashboard', name: 'Checkout', version: 4, ...block }, ...content } as unknown as LiveDocumentBody;
}

/** The pulled document with its file's text made, to compare as a whole. */
function textOf(pulled: PulledDocument): unknown {
  return 'refused' in pulled ? pulled : { ...pulled, fileText: pulled.fileText() };
}

describe('pulledDocument (a live document as pull writes it)', () => {
  it('writes document: first (kind, the live id, name, the description without the mark), then the content as stored', () => {
    const pulled = pulledDocument('checkout-overview', live({ description: `Errors of checkout [${TAG}]`, isPrivate: false }), TAG);
    expect(textOf(pulled)).toStrictEqual({
      name: 'Checkout',
      value: { document: { kind: 'dashboard', name: 'Checkout', isPrivate: false, description: 'Errors of checkout' }, ...CONTENT },
      fileText:
        'document:\n  kind: dashboard\n  id: checkout-overview\n  name: Checkout\n  description: Errors of checkout\nversion: 21\nvariables: []\ntiles:\n' +
        '  "0":\n    type: markdown\n    content: "# Checkout"\nlayouts:\n  "0":\n    x: 0\n    y: 0\n    w: 24\n    h: 2\n',
    });
  });

  it('leaves out a description that was only the mark, and says isPrivate only when true', () => {
    const pulled = pulledDocument('triage', live({ kind: 'notebook', name: 'Triage', description: `[${TAG}]`, isPrivate: true }, { version: '7', sections: [] }), TAG);
    expect(textOf(pulled)).toStrictEqual({
      name: 'Triage',
      value: { document: { kind: 'notebook', name: 'Triage', isPrivate: true }, version: '7', sections: [] },
      fileText: 'document:\n  kind: notebook\n  id: triage\n  name: Triage\n  isPrivate: true\nversion: "7"\nsections: []\n',
    });
  });

  it('keeps a description that only looks like the mark, and takes a missing isPrivate as public', () => {
    const pulled = pulledDocument('d1', live({ description: `see[${TAG}]` }, { version: 21 }), TAG);
    expect(textOf(pulled)).toStrictEqual({
      name: 'Checkout',
      value: { document: { kind: 'dashboard', name: 'Checkout', description: `see[${TAG}]` }, version: 21 },
      fileText: `document:\n  kind: dashboard\n  id: d1\n  name: Checkout\n  description: see[${TAG}]\nversion: 21\n`,
    });
  });

  it('refuses content with its own top-level dashcd member, saying what to do', () => {
    expect(pulledDocument('own', live({ isPrivate: false }, { version: 21, dashcd: { x: 1 } }), TAG)).toStrictEqual({
      refused: 'its content has a top-level "dashcd" member, which a dashcd file would read as its own settings; rename that member in the app first',
    });
  });
});
