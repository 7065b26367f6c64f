/** 1-based line and column of an offset, without parsing the text (which, nested too deeply, must not be). */
export function sourceLinePos(source: string, offset: number): { line: number; col: number } {
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, col: offset - lineStart + 1 };
}
