import { describe, expect, it } from 'vitest';
import { diagnosticsMarkdown, renderDiagnosticsMarkdown } from '../../../src/cli/diagnostics-output.js';

const at = (file: string, message = 'Required') => ({ file, line: 1, col: 2, path: 'x', message });

describe('diagnosticsMarkdown', () => {
  it('fences the lines validate prints, problems then warnings', () => {
    expect(diagnosticsMarkdown([at('a.yaml')], [at('b.yaml', 'unknown key')])).toBe('```text\na.yaml:1:2  x: Required\nb.yaml:1:2  warning: x: unknown key\n```');
  });

  it('fences with more backticks than any run in the lines, so a file name cannot close the block', () => {
    expect(diagnosticsMarkdown([at('a````b.yaml')])).toBe('`````text\na````b.yaml:1:2  x: Required\n`````');
    expect(diagnosticsMarkdown([at('a`b.yaml')])).toBe('```text\na`b.yaml:1:2  x: Required\n```');
  });

  it('heads a plan that stopped with the count', () => {
    expect(renderDiagnosticsMarkdown([at('a.yaml'), at('b.yaml')])).toBe('### dashcd plan: 2 problems, nothing planned\n\n```text\na.yaml:1:2  x: Required\nb.yaml:1:2  x: Required\n```\n');
  });
});
