/**
 * A small RFC 6570 expander for resource templates: the variable names of a template, and the
 * URI for given values (levels 1–3; an explode modifier is read but values stay scalars).
 */

const EXPRESSION = /\{([+#./;?&]?)([^}]*)\}/g;

interface Operator {
  readonly first: string;
  readonly separator: string;
  readonly named: boolean;
  readonly ifEmpty: string;
  readonly reserved: boolean;
}

const OPERATORS: Readonly<Record<string, Operator>> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', reserved: false },
};

function variableName(spec: string): string {
  return spec.replace(/\*$/, '').replace(/:\d+$/, '').trim();
}

/** The variable names of a URI template, in order, without repeats. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(EXPRESSION)) {
    for (const spec of (match[2] ?? '').split(',')) {
      const name = variableName(spec);
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

function encode(value: string, reserved: boolean): string {
  return reserved
    ? encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, '%$1')
    : encodeURIComponent(value);
}

/** The URI for `values`; undefined or empty values are left out as RFC 6570 says. */
export function expandTemplate(
  template: string,
  values: Readonly<Record<string, string | undefined>>,
): string {
  return template.replace(EXPRESSION, (_all, op: string, list: string) => {
    const operator = OPERATORS[op] ?? OPERATORS['']!;
    const parts: string[] = [];
    for (const spec of list.split(',')) {
      const name = variableName(spec);
      const value = values[name];
      if (value === undefined) continue;
      const prefix = /:(\d+)$/.exec(spec.replace(/\*$/, ''));
      const cut = prefix ? value.slice(0, Number(prefix[1])) : value;
      const encoded = encode(cut, operator.reserved);
      if (operator.named)
        parts.push(cut === '' ? `${name}${operator.ifEmpty}` : `${name}=${encoded}`);
      else parts.push(encoded);
    }
    return parts.length === 0 ? '' : operator.first + parts.join(operator.separator);
  });
}
