import { describe, expect, it } from 'vitest';
import { templateAsText } from '../../../src/desired/template-text.js';

const at = (source: string): string | undefined => {
  const found = templateAsText(source);
  return found && `${found.line}:${found.col}`;
};

describe('templateAsText', () => {
  it("finds dashcd's templates: values, env.name and env.group, dashboard(), with or without blanks", () => {
    expect(at('a: ${{ values.zone }}')).toBe('1:4');
    expect(at('a: ${{values.zone}}')).toBe('1:4');
    expect(at('a: ${{\tenv.name }}')).toBe('1:4');
    expect(at('a: ${{ env.group }}')).toBe('1:4');
    expect(at('a: ${{ dashboard("x.yaml") }}')).toBe('1:4');
    expect(at('a: ${{ dashboard ("x.yaml") }}')).toBe('1:4');
  });

  it("leaves another tool's templates and look-alikes alone", () => {
    expect(at('a: ${{ secrets.TOKEN }} ${{ github.sha }}')).toBeUndefined();
    expect(at('a: ${{ env.names }} ${{ env.NAME }} ${{ envx.name }}')).toBeUndefined();
    expect(at('a: ${{ valuesx }} ${{ value.x }} ${{ dashboards("x") }}')).toBeUndefined();
    expect(at('a: ${ values.x } $ {{ values.x }} {{ values.x }}')).toBeUndefined();
    expect(at('')).toBeUndefined();
  });

  it('points at the first one, by line and column, with the message that says what to do', () => {
    expect(templateAsText('x: 1\ny:\n  z: "on call ${{ values.oncall }}, ${{ env.name }}"\n')).toEqual({
      line: 3,
      col: 15,
      path: '',
      message: 'a template, but dashcd.yaml declares no environments to give it values: it is applied as the text it is; declare environments (docs/environments.md) or write the value itself',
    });
    expect(at('${{ secrets.X }}\n${{ env.name }}')).toBe('2:1');
  });
});
