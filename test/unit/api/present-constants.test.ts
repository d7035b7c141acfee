import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * No invented values in presenters: a property of an object literal in a `src/api/**\/present.ts`
 * whose value is the literal `false`, `0`, `''` or `null` is a value the data did not give. Each
 * one that is right whatever the data (GitBook's documented value for what this service does not
 * have, or a value that is not a domain field at all) is listed below with the reason.
 */

interface Allowed {
  file: string;
  property: string;
  reason: string;
}

const ALLOWED: Allowed[] = [
  {
    file: 'src/api/comments/present.ts',
    property: 'count',
    reason: 'the replies of a comment absent from the replies read are none: its reply count is zero',
  },
  {
    file: 'src/api/openapi/present.ts',
    property: 'public',
    reason: "specs here are readable by members only: GitBook's OpenAPISpecContent documents null for private specs",
  },
  {
    file: 'src/api/orgs/present.ts',
    property: 'count',
    reason: "no billing here, so no trial: GitBook's trial.status notapplicable, and no trial consumed",
  },
  {
    file: 'src/api/sites/present.ts',
    property: 'hostname',
    reason: 'not a response field: the site base URL a proxy points to is the one without hostname or proxy',
  },
  {
    file: 'src/api/sites/present.ts',
    property: 'proxy',
    reason: 'not a response field: the site base URL a proxy points to is the one without hostname or proxy',
  },
  {
    file: 'src/api/sites/present.ts',
    property: 'defaultLevel',
    reason:
      "a site has no level of its own (readers act with their organization role, which GitBook's DefaultLevel calls " +
      "'inherit'); null stays while test/api/sites.test.ts pins it: to change together",
  },
  {
    file: 'src/api/sso/present.ts',
    property: 'wantAssertionsSigned',
    reason: "an option of the SAML library's metadata generator, not a response field",
  },
  ...['runs', 'totalWords', 'totalPages', 'totalDuration', 'latestRunDuration', 'latestPages', 'latestWords'].map((property) => ({
    file: 'src/api/translations/present.ts',
    property,
    reason: 'this service stores translation settings and runs no translation: every run counter is zero (GitBook requires them)',
  })),
];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function presenterFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return presenterFiles(path);
    return entry.name === 'present.ts' ? [relative(ROOT, path)] : [];
  });
}

/** The value itself, through `as`, `satisfies`, `!` and parentheses. */
function unwrap(node: ts.Expression): ts.Expression {
  let value = node;
  while (
    ts.isAsExpression(value) ||
    ts.isSatisfiesExpression(value) ||
    ts.isParenthesizedExpression(value) ||
    ts.isNonNullExpression(value) ||
    ts.isTypeAssertionExpression(value)
  ) {
    value = value.expression;
  }
  return value;
}

function isInventedLiteral(node: ts.Expression): boolean {
  const value = unwrap(node);
  if (value.kind === ts.SyntaxKind.FalseKeyword || value.kind === ts.SyntaxKind.NullKeyword) return true;
  if (ts.isNumericLiteral(value)) return Number(value.text) === 0;
  if (ts.isPrefixUnaryExpression(value) && value.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(value.operand))
    return Number(value.operand.text) === 0;
  if (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)) return value.text === '';
  return false;
}

interface Finding {
  file: string;
  property: string;
  line: number;
  text: string;
}

/** Every object-literal property of `source` whose value is a literal false, 0, '' or null. */
function inventedConstants(file: string, source: string): Finding[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Finding[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && ts.isObjectLiteralExpression(node.parent) && isInventedLiteral(node.initializer)) {
      found.push({
        file,
        property: node.name.getText(sourceFile).replace(/^['"]|['"]$/g, ''),
        line: sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1,
        text: node.getText(sourceFile),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

const allowed = (f: { file: string; property: string }) => ALLOWED.some((a) => a.file === f.file && a.property === f.property);

describe('presenters answer what the data says', () => {
  const files = presenterFiles(join(ROOT, 'src', 'api'));
  const findings = files.flatMap((file) => inventedConstants(file, readFileSync(join(ROOT, file), 'utf8')));

  it('finds the presenters', () => {
    expect(files).toEqual(expect.arrayContaining(['src/api/orgs/present.ts', 'src/api/people/present.ts', 'src/api/spaces/present.ts']));
  });

  it('answers no literal false, 0, empty string or null for a field but the allowed ones', () => {
    const invented = findings.filter((f) => !allowed(f)).map((f) => `${f.file}:${f.line} ${f.text}`);
    expect(invented).toEqual([]);
  });

  it('allows only what is still there, each with its reason', () => {
    const stale = ALLOWED.filter((a) => !findings.some((f) => f.file === a.file && f.property === a.property));
    expect(stale).toEqual([]);
    for (const entry of ALLOWED) expect(entry.reason.length).toBeGreaterThan(20);
  });

  it('catches the constants once answered for organizations, members, installations and site spaces', () => {
    const source = [
      'export const a = () => ({ inviteLinks: false, sso: false as boolean, ai: (false) });',
      "export const b = { sites: 0, spaces: -0, label: '', hasAdvancedCustomizationFeature: false, parent: null, n: 0.0 };",
      "export const c = { sites: count, spaces: n ?? 0, label: 'x', flag: true, ...(x ? { y: null } : {}) };",
    ].join('\n');
    expect(inventedConstants('src/api/x/present.ts', source).map((f) => f.property)).toEqual([
      'inviteLinks',
      'sso',
      'ai',
      'sites',
      'spaces',
      'label',
      'hasAdvancedCustomizationFeature',
      'parent',
      'n',
      'y',
    ]);
  });
});
