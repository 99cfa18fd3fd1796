// SPDX-License-Identifier: MIT
// What every page of the walk must satisfy, checked in headless Chromium:
// no console error, page error or CSP violation; no request leaves the UI's
// origin; the response headers the issue requires; axe-core finds no serious
// or critical violation; and the forgotten text is on no page but the
// tombstone's.  Screenshots of each page, light, dark and phone-sized, go to
// the artifact directory.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 860 };

export class Walker {
  /** `page` is in a strict context (the page's own CSP in force). */
  constructor(page, origin, shots) {
    this.page = page;
    this.origin = origin;
    this.shots = shots;
    this.problems = [];
    this.pages = [];    // {name, url, html} of every page visited
    this.expected = new Set();  // console messages a step expects (an error status)
    mkdirSync(shots, { recursive: true });
    page.on('console', (m) => {
      if (m.type() !== 'error' && m.type() !== 'warning') return;
      if ([...this.expected].some((e) => m.text().includes(e))) return;
      this.problems.push(`console ${m.type()} on ${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.problems.push(`page error on ${page.url()}: ${e.message}`));
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('about:'))
        this.problems.push(`external request from ${page.url()}: ${u}`);
    });
  }

  /** Listens for CSP violations (before any page loads). */
  async listen() {
    await this.page.exposeFunction('__originCspViolation', (v) => {
      this.problems.push(`CSP violation on ${this.page.url()}: ${v}`);
    });
    await this.page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        // eslint-disable-next-line no-undef
        window.__originCspViolation(`${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`);
      });
    });
  }

  /** Fails on whatever went wrong since the last call. */
  clean(step) {
    const p = this.problems.splice(0);
    assert.deepEqual(p, [], `${step}: ${p.join('\n')}`);
  }

  /**
   * Opens /admin<path>, expecting `status`, and checks it (see check()).
   * Returns the response.
   */
  async visit(name, path, status = 200) {
    if (status !== 200) this.expected.add(`status of ${status}`);
    const res = await this.page.goto(`${this.origin}/admin${path}`, { waitUntil: 'load' });
    assert.equal(res.status(), status, `${name}: GET /admin${path} answered ${res.status()}`);
    await this.check(name, res);
    this.expected.clear();
    return res;
  }

  /** Checks the page now shown, reached by `res` (a navigation's response). */
  async check(name, res) {
    const h = res.headers();
    const csp = h['content-security-policy'] || '';
    assert.match(csp, /default-src 'none'/, `${name}: CSP ${csp}`);
    assert.match(csp, /require-trusted-types-for 'script'/, `${name}: CSP ${csp}`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, `${name}: CSP ${csp}`);
    assert.match(h['cache-control'] || '', /no-store/, `${name}: Cache-Control`);
    assert.equal(h['x-content-type-options'], 'nosniff', `${name}: X-Content-Type-Options`);
    assert.match(h['content-type'] || '', /^text\/html; charset=utf-8/i, `${name}: Content-Type`);
    const html = await this.page.content();
    this.pages.push({ name, url: this.page.url(), html });
    await this.axe(name);
    await this.screenshots(name);
    this.clean(name);
  }

  // axe-core, evaluated through the driver (CDP's Runtime.evaluate, which the
  // page's CSP does not govern), so the page's own policy stays strict.
  async axe(name) {
    await this.page.evaluate(axeSource);
    const result = await this.page.evaluate(() =>
      // eslint-disable-next-line no-undef
      axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`);
    assert.deepEqual(bad, [], `${name}: axe-core\n${bad.join('\n')}`);
  }

  async screenshots(name) {
    const file = (variant) => join(this.shots, `${name}-${variant}.png`);
    await this.page.screenshot({ path: file('light'), fullPage: true });
    await this.page.emulateMedia({ colorScheme: 'dark' });
    await this.page.screenshot({ path: file('dark'), fullPage: true });
    await this.page.emulateMedia({ colorScheme: 'light' });
    await this.page.setViewportSize(PHONE);
    await this.page.screenshot({ path: file('phone'), fullPage: false });
    // Nothing wider than the phone's screen but what scrolls inside itself.
    const wide = await this.page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > PHONE.width) this.problems.push(`${name}: ${wide}px wide on a ${PHONE.width}px phone`);
    await this.page.setViewportSize(LAPTOP);
  }

  /** Names of the pages visited since `from` whose HTML holds `text`. */
  holding(text, from = 0) {
    return this.pages.slice(from).filter((p) => p.html.includes(text)).map((p) => p.name);
  }
}

export { LAPTOP };
