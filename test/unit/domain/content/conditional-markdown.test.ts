import { describe, expect, it } from '@jest/globals';
import { conditionalMarkdown } from '../../../../src/domain/content/conditional-markdown.ts';
import { conditionContext, conditionHolds } from '../../../../src/domain/sites/conditions.ts';

const forClaims = (signed: Record<string, unknown>) => {
  const context = conditionContext({ signed, unsigned: {} });
  return (expression: string) => conditionHolds(expression, context);
};
const pro = forClaims({ plan: 'pro' });
const free = forClaims({ plan: 'free' });

const PAGE = [
  '# Pricing',
  '',
  '{% if visitor.claims.plan == "pro" %}',
  'Pro secret.',
  '{% elif visitor.claims.plan == "team" %}',
  'Team secret.',
  '{% else %}',
  'Upgrade.',
  '{% endif %}',
  '',
  'Footer.',
  '',
].join('\n');

describe('conditionalMarkdown', () => {
  it('keeps the branch whose condition holds, without the tags', () => {
    expect(conditionalMarkdown(PAGE, pro)).toBe('# Pricing\n\nPro secret.\n\nFooter.\n');
    expect(conditionalMarkdown(PAGE, free)).toBe('# Pricing\n\nUpgrade.\n\nFooter.\n');
    expect(conditionalMarkdown(PAGE, forClaims({ plan: 'team' }))).toBe('# Pricing\n\nTeam secret.\n\nFooter.\n');
  });

  it('hides nested branches with their parent, and evaluates nothing inside a hidden branch', () => {
    const seen: string[] = [];
    const text = '{% if false %}\nA\n{% if true %}\nB\n{% endif %}\n{% else %}\nC\n{% endif %}\nD\n';
    const out = conditionalMarkdown(text, (e) => (seen.push(e), forClaims({})(e)));
    expect(out).toBe('C\nD\n');
    expect(seen).toEqual(['false', '!(false)']);
  });

  it('treats tags in fenced code as text, and keeps other tags', () => {
    const text = '{% if false %}\nsecret\n```\n{% endif %}\n```\nmore secret\n{% endif %}\n{% hint style="info" %}\nHi\n{% endhint %}\n';
    expect(conditionalMarkdown(text, free)).toBe('{% hint style="info" %}\nHi\n{% endhint %}\n');
  });

  it('handles tags within a line, whitespace control, and a condition that fails to evaluate', () => {
    expect(conditionalMarkdown('a {%- if false -%}b{% else %}c{% endif %} d', free)).toBe('a c d');
    expect(conditionalMarkdown('{% if visitor.claims.( %}\nx\n{% else %}\ny\n{% endif %}\n', free)).toBe('');
  });

  it('hides what follows an unclosed if, and keeps an endif without its if as text', () => {
    expect(conditionalMarkdown('shown\n{% if false %}\nhidden\n', free)).toBe('shown\n');
    expect(conditionalMarkdown('text {% endif %}\n', free)).toBe('text {% endif %}\n');
  });

  it('bounds its work: a 4,000-branch elif chain builds no condition past the longest that can hold; 100,000 unclosed tags stay text', () => {
    const chain = `{% if false %}\n0\n${Array.from({ length: 4000 }, (_, i) => `{% elif visitor.claims.n == ${i} %}\n${i}\n`).join('')}{% else %}\nlast\n{% endif %}\n`;
    let calls = 0;
    const out = conditionalMarkdown(chain, (e) => (calls++, forClaims({ n: 3 })(e)));
    expect(out).toBe('3\n');
    // Conditions past the longest that can hold are not built, nor evaluated.
    expect(calls).toBeLessThan(100);
    const unclosed = '{% '.repeat(100_000);
    expect(conditionalMarkdown(unclosed, free)).toBe(unclosed);
  });
});
