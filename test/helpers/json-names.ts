/** The names of a JSON object text's own members, in order, repeats kept (JSON.parse keeps only the last). */
export function topLevelNames(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      if (depth === 1 && /^\s*:/.test(text.slice(i + 1, i + 4))) names.push(JSON.parse(text.slice(start, i + 1)) as string);
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return names;
}
