// @ts-check
/**
 * The layer boundaries of the code, as ESLint rules (wired up in eslint.config.js):
 *
 * - `src/lib` is the domain. It runs under plain Node (CLIs, scripts, jobs) as well as under Astro,
 *   so it imports nothing from Astro and nothing from the layers built on top of it.
 * - Pages, components, layouts and islands hold no SQL: every query lives in `src/lib/<area>`, where
 *   it is typed once and tested against the database. They do not import the database module
 *   either; they call functions of `src/lib` that take a handle or open the transaction themselves.
 */
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const LIB = path.join(ROOT, 'src', 'lib');
const DB = path.join(LIB, 'db');
/** Layers that sit on top of src/lib: the domain never reaches up into them. */
const UPPER_LAYERS = ['components', 'pages', 'layouts', 'islands', 'server', 'middleware'].map((dir) =>
  path.join(ROOT, 'src', dir),
);

/**
 * The absolute path an import specifier points at inside the repo, or null for a package.
 * `#lib/…` is the package.json subpath import for src/lib.
 * @param {string} specifier
 * @param {string} filename
 */
function resolveInRepo(specifier, filename) {
  if (specifier.startsWith('#lib/')) return path.join(LIB, specifier.slice('#lib/'.length));
  if (specifier.startsWith('./') || specifier.startsWith('../')) return path.resolve(path.dirname(filename), specifier);
  if (specifier.startsWith('/')) return path.join(ROOT, specifier);
  return null;
}

/** @param {string} target @param {string} dir */
function isInside(target, dir) {
  return target === dir || target.startsWith(dir + path.sep) || target.startsWith(dir + '.');
}

/**
 * Calls `check(specifier, node)` for every place a module names another one: static imports,
 * re-exports, dynamic `import()` and type-level `import('…')`.
 * @param {(specifier: string, node: any) => void} check
 */
function moduleSources(check) {
  /** @param {any} source */
  const visit = (source) => {
    if (source && source.type === 'Literal' && typeof source.value === 'string') check(source.value, source);
  };
  return {
    /** @param {any} node */
    ImportDeclaration: (node) => visit(node.source),
    /** @param {any} node */
    ExportNamedDeclaration: (node) => visit(node.source),
    /** @param {any} node */
    ExportAllDeclaration: (node) => visit(node.source),
    /** @param {any} node */
    ImportExpression: (node) => visit(node.source),
    /** @param {any} node */
    TSImportType: (node) => visit(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
  };
}

/** @type {import('eslint').Rule.RuleModule} */
const noFrameworkInLib = {
  meta: {
    type: 'problem',
    docs: { description: 'src/lib imports neither Astro nor the page, component, layout and island layers.' },
    messages: {
      astro:
        "src/lib runs under plain Node as well as Astro: '{{specifier}}' is Astro. Pass the values the function needs instead.",
      upper:
        "src/lib is the domain, below the pages, components, layouts and islands: '{{specifier}}' reaches up into them.",
    },
    schema: [],
  },
  create(context) {
    return moduleSources((specifier, node) => {
      if (
        specifier === 'astro' ||
        specifier.startsWith('astro/') ||
        specifier.startsWith('astro:') ||
        specifier.startsWith('@astrojs/') ||
        specifier.endsWith('.astro')
      ) {
        context.report({ node, messageId: 'astro', data: { specifier } });
        return;
      }
      const target = resolveInRepo(specifier, context.filename);
      if (target && UPPER_LAYERS.some((dir) => isInside(target, dir))) {
        context.report({ node, messageId: 'upper', data: { specifier } });
      }
    });
  },
};

/** @type {import('eslint').Rule.RuleModule} */
const noDbInPages = {
  meta: {
    type: 'problem',
    docs: { description: 'Pages, components, layouts and islands do not import the database module.' },
    messages: {
      db: "'{{specifier}}' is the database module: call a function of src/lib/<area> that runs the query instead.",
    },
    schema: [],
  },
  create(context) {
    return moduleSources((specifier, node) => {
      const target = resolveInRepo(specifier, context.filename);
      if (target && isInside(target, DB)) context.report({ node, messageId: 'db', data: { specifier } });
    });
  },
};

/**
 * What a SQL statement looks like at the start of a string. Each pattern needs the keyword that
 * follows the verb (`from`, `into`, `set`, `as (`), and the statement must open with its verb all in
 * lower case (as this code base writes SQL) or all in upper case, so UI text such as "Select a lender
 * from the list" or "Update the settings" is not taken for a query.
 */
const SQL_PATTERNS = [
  /^\s*select\s[\s\S]*?\bfrom\s+[a-z_"(]/i,
  /^\s*select\s+(\d+|\*|count\s*\(|exists\s*\()/i,
  /^\s*insert\s+into\s+[a-z_"]/i,
  /^\s*update\s+[a-z_"][\w".]*(\s+[a-z_]\w*)?\s+set\s/i,
  /^\s*delete\s+from\s+[a-z_"]/i,
  /^\s*with\s+(recursive\s+)?[a-z_]\w*\s+as\s*\(/i,
];
const SQL_VERB = /^\s*(select|insert|update|delete|with|SELECT|INSERT|UPDATE|DELETE|WITH)\b/;

/** @param {string} text */
export function looksLikeSql(text) {
  return SQL_VERB.test(text) && SQL_PATTERNS.some((pattern) => pattern.test(text));
}

/** @type {import('eslint').Rule.RuleModule} */
const noSqlInPages = {
  meta: {
    type: 'problem',
    docs: { description: 'Pages, components, layouts and islands hold no SQL.' },
    messages: {
      sql: 'SQL belongs in src/lib/<area>, typed once and tested there: move this query into a function the page calls.',
      query: 'Queries run in src/lib/<area>: call a function of src/lib instead of `.{{name}}()` on a database handle.',
    },
    schema: [],
  },
  create(context) {
    return {
      /** @param {any} node */
      Literal(node) {
        if (typeof node.value === 'string' && looksLikeSql(node.value)) context.report({ node, messageId: 'sql' });
      },
      /** @param {any} node */
      TemplateLiteral(node) {
        // Each interpolation stands in as a placeholder, the way it reaches the database.
        const text = node.quasis.map((/** @type {any} */ quasi) => quasi.value.cooked ?? quasi.value.raw).join('$1');
        if (looksLikeSql(text)) context.report({ node, messageId: 'sql' });
      },
      /** @param {any} node */
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return;
        const name = callee.property.name;
        if (name === 'query') context.report({ node, messageId: 'query', data: { name } });
      },
    };
  },
};

export default {
  meta: { name: 'boundaries' },
  rules: {
    'no-framework-in-lib': noFrameworkInLib,
    'no-db-in-pages': noDbInPages,
    'no-sql-in-pages': noSqlInPages,
  },
};
