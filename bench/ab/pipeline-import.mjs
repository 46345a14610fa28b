// node pipeline-import.mjs FILE ROOT: moves `runToolCall` out of FILE's import from
// ROOT/index.js into an import from ROOT/tools/index.js (used by prepare.sh).
import process from 'node:process';
import { readFileSync, writeFileSync } from 'node:fs';

const [file, root] = process.argv.slice(2);
const from = `'${root}/index.js';`;
let text = readFileSync(file, 'utf8');
const pattern = /^import \{([^}]*)\} from '([^']*)';$/gm;
text = text.replace(pattern, (whole, names, path) => {
  if (`'${path}';` !== from || !/\brunToolCall\b/.test(names)) return whole;
  const rest = names
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '' && n !== 'runToolCall');
  return `import { ${rest.join(', ')} } from ${from}\nimport { runToolCall } from '${root}/tools/index.js';`;
});
writeFileSync(file, text);
