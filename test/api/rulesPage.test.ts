/**
 * site/rules/index.md is generated from the operators' rule lists and is
 * up to date. After a change of a rule list: `npm run docs:rules`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderRulesPage } from '../helpers/ruleList.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const page = `${root}site/rules/index.md`;

describe('site/rules/index.md', () => {
  it('is the page generated from the rule lists of the doc comments', () => {
    const rendered = renderRulesPage(root);
    if (process.env['RULES_UPDATE'] === '1') writeFileSync(page, rendered);
    expect(readFileSync(page, 'utf8')).toBe(rendered);
  });

  it('holds every rule list, the reopenListen rules among them', () => {
    const text = readFileSync(page, 'utf8');
    expect(text).toContain('## `reopenListen`');
    expect(text).toContain('12. an error type of another product is classified by the classifyEnd of the config');
    expect(text).toContain('## The listener of the bridge');
  });
});
