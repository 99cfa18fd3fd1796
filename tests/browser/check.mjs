// SPDX-License-Identifier: MIT
// What every page of the walk must satisfy, checked in headless Chromium:
// no console error, page error or CSP violation; no request leaves the UI's
// origin; the response headers the issue requires; axe-core finds no serious
// or critical violation; and the forgotten text is on no page but the
// tombstone's.  Screenshots of each page, light, dark and phone-sized, go to
// the artifact directory.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
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
    rmSync(shots, { recursive: true, force: true });  // this run's pictures alone
    mkdirSync(shots, { recursive: true });
    page.on('console', (m) => {
      if (m.type() !== 'error' && m.type() !== 'warning') return;
      if ([...this.expected].some((e) => m.text().includes(e))) return;
      const at = m.location() && m.location().url ? ` (${m.location().url})` : '';
      this.problems.push(`console ${m.type()} on ${page.url()}: ${m.text()}${at}`);
    });
    page.on('pageerror', (e) => this.problems.push(`page error on ${page.url()}: ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.request().isNavigationRequest())
        this.problems.push(`${r.status()} for ${r.url()} (a resource of ${page.url()})`);
    });
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
    assert.ok(p.length === 0, `${step}: ${p.join('\n')}`);
  }

  /**
   * Opens /admin<path>, expecting `status`, and checks it (see check()).
   * Returns the response.
   */
  async visit(name, path, status = 200) {
    if (status !== 200) this.expected.add(`status of ${status}`);
    try {
      const res = await this.page.goto(`${this.origin}/admin${path}`, { waitUntil: 'load' });
      await this.check(name, res, status);
      return res;
    } finally {
      this.expected.clear();
    }
  }

  /**
   * Checks the page now shown, reached by `res` (a navigation's response):
   * its status, headers, console, axe-core; takes its screenshots.  Throws
   * with everything found wrong.
   */
  async check(name, res, status = 200) {
    const bad = [];
    if (res.status() !== status) {
      bad.push(`answered ${res.status()}, not ${status}: ${await this.said()}`);
    }
    const h = res.headers();
    const want = (ok, what) => { if (!ok) bad.push(what); };
    const csp = h['content-security-policy'] || '';
    want(/default-src 'none'/.test(csp), `CSP without default-src 'none': ${csp}`);
    want(/require-trusted-types-for 'script'/.test(csp), `CSP without Trusted Types: ${csp}`);
    want(!/unsafe-inline|unsafe-eval/.test(csp), `CSP allows unsafe-*: ${csp}`);
    want(/no-store/.test(h['cache-control'] || ''), `Cache-Control: ${h['cache-control']}`);
    want(h['x-content-type-options'] === 'nosniff', `X-Content-Type-Options: ${h['x-content-type-options']}`);
    want(/^text\/html; charset=utf-8/i.test(h['content-type'] || ''), `Content-Type: ${h['content-type']}`);
    const html = await this.page.content();
    this.pages.push({ name, url: this.page.url(), html });
    await this.screenshots(name);
    bad.push(...await this.axe());
    bad.push(...this.problems.splice(0));
    assert.ok(bad.length === 0, `${name} (${this.page.url()}):\n  ${bad.join('\n  ')}`);
  }

  // axe-core, evaluated through the driver (CDP's Runtime.evaluate, which the
  // page's CSP does not govern), so the page's own policy stays strict.
  // Its serious and critical findings.
  async axe() {
    await this.page.evaluate(axeSource);
    const result = await this.page.evaluate(() =>
      // eslint-disable-next-line no-undef
      axe.run(document, { resultTypes: ['violations'] }));
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `axe ${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`);
  }

  async screenshots(name) {
    const file = (variant) => join(this.shots, `${name}-${variant}.png`);
    // The whole page, but no taller than 4,000 px: the viewport is made as
    // tall as the page (Chromium's full-page capture of a 15,000 px page, one
    // holding a huge line, does not finish).
    const height = await this.page.evaluate(() => document.documentElement.scrollHeight);
    // A capture of a page that tall takes seconds on a loaded machine
    // (CI's other tests beside it): its own timeout, longer than a step's.
    const timeout = 60000;
    await this.page.setViewportSize({ width: LAPTOP.width, height: Math.min(Math.max(height, LAPTOP.height), 4000) });
    await this.page.screenshot({ path: file('light'), timeout });
    await this.page.emulateMedia({ colorScheme: 'dark' });
    await this.page.screenshot({ path: file('dark'), timeout });
    await this.page.emulateMedia({ colorScheme: 'light' });
    await this.page.setViewportSize(PHONE);
    await this.page.screenshot({ path: file('phone'), fullPage: false, timeout });
    // Nothing wider than the phone's screen but what scrolls inside itself.
    const wide = await this.page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > PHONE.width) this.problems.push(`${name}: ${wide}px wide on a ${PHONE.width}px phone`);
    await this.page.setViewportSize(LAPTOP);
  }

  /** The start of the page's main text, for a failure's message. */
  async said() {
    const main = this.page.locator('main');
    const t = await (await main.count() ? main : this.page.locator('body')).innerText();
    return t.replace(/\s+/g, ' ').slice(0, 300);
  }

  /** Names of the pages visited since `from` whose HTML holds `text`. */
  holding(text, from = 0) {
    return this.pages.slice(from).filter((p) => p.html.includes(text)).map((p) => p.name);
  }
}

export { LAPTOP };
