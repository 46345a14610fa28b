import { describe, expect, it } from 'vitest';
import { expandTemplate, templateVariables } from './uri-template.js';

describe('uri templates', () => {
  it('lists the variables in order, once each', () => {
    expect(templateVariables('file:///{dir}/{name}{?q,dir}')).toEqual(['dir', 'name', 'q']);
  });

  it('expands simple, reserved, path and query expressions', () => {
    expect(expandTemplate('test://static/resource/{id}', { id: '4 2' })).toBe(
      'test://static/resource/4%202',
    );
    expect(expandTemplate('file://{+path}', { path: '/a b/c' })).toBe('file:///a%20b/c');
    expect(expandTemplate('x://h{/a,b}', { a: 'p', b: 'q' })).toBe('x://h/p/q');
    expect(expandTemplate('x://h/s{?q,n}', { q: 'a&b', n: '' })).toBe('x://h/s?q=a%26b&n=');
    expect(expandTemplate('x://h/s{?q}', {})).toBe('x://h/s');
  });
});
