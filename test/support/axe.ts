import fs from 'node:fs';
import type { Page } from 'playwright-core';

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string;
  targets: string[];
}

/**
 * axe-core's violations of any impact on the page as it is now (an open dialog included). axe is
 * evaluated through the DevTools protocol, which the app's Content-Security-Policy does not cover,
 * so the page keeps its policy (launchBrowser fails a spec on any CSP violation).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await (
      window as unknown as {
        axe: { run: (o: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe.run({ resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
}

/** The focused element, described for assertions: inside the dialog named `dialog`, on the page behind, or nowhere. */
export async function focusIn(page: Page): Promise<{ inDialog: string | null; label: string }> {
  return page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    const d = a?.closest('dialog');
    const label =
      !a || a === document.body
        ? 'body'
        : a.getAttribute('aria-label') || (a as HTMLInputElement).labels?.[0]?.textContent?.trim() || a.textContent?.trim() || a.tagName;
    return { inDialog: d ? (document.getElementById(d.getAttribute('aria-labelledby') ?? '')?.textContent ?? '') : null, label };
  });
}
