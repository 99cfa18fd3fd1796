// SPDX-License-Identifier: MIT
// origin ui in a real browser (issue 16, Tests): Debian's Chromium, headless,
// driven by playwright-core, signs in through the link `origin ui` prints and
// walks every page of a store holding the agents' fixtures and a session of
// hostile messages; it remembers from an event page, corrects the entry,
// forgets an event after its preview (a plan changed meanwhile gets 409),
// and restores it, checking after each write what the page shows against the
// store (the CLI's --json answers).  Every page: no console error, page error
// or CSP violation, no request elsewhere, the required headers, no serious or
// critical axe-core violation, hostile content shown as text (no script but
// our asset, no javascript: link); the forgotten text on no page but the
// tombstone's (invariant: hidden content is shown only where the owner asks
// for it).  Screenshots (light, dark, phone) go to
// $ORIGIN_UI_SCREENSHOTS (meson: <build>/meson-logs/ui-screenshots/).
// Exit 77 (meson: skipped) only when Chromium is missing.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  console.log(`SKIP: no Chromium at ${chromiumPath} (apt-get install chromium, or packaging/deps.sh chromium)`);
  process.exit(77);
}
const { chromium } = await import('playwright-core');
const { SECRET, World } = await import('./fixture.mjs');
const { LAPTOP, Walker } = await import('./check.mjs');

const shots = process.env.ORIGIN_UI_SCREENSHOTS || join(tmpdir(), 'origin-ui-screenshots');
const started = Date.now();
const w = new World();
let browser = null;
try {
  w.origin('sync', '--json');
  const sessions = w.origin('timeline', '--days', '30', '--json').sessions;
  const hostile = sessions.find((s) => s.id.includes('7c0de000-0000-4000-8000-00000000b0b0'));
  assert.ok(hostile, `the hostile session is in the timeline: ${JSON.stringify(sessions.map((s) => s.id))}`);
  const events = w.origin('timeline', hostile.id, '--all', '--json').events;
  const byText = (t) => {
    const e = events.find((x) => (x.text || '').includes(t));
    assert.ok(e, `an event holds ${t.slice(0, 40)}`);
    return e;
  };
  const prompt = byText('deploy the blue-green');
  const secret = byText(SECRET);
  const huge = byText('A'.repeat(100));

  const link = await w.startUi();
  const origin = new URL(link).origin;
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: LAPTOP, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const walk = new Walker(page, origin, shots);
  await walk.listen();

  // Each step is checked on its own: a failing step is reported and the walk
  // goes on, so one run names every page that is wrong.
  const failures = [];
  const step = async (name, fn) => {
    try {
      await fn();
    } catch (e) {
      failures.push(`${name}: ${e.message}`);
      walk.problems.length = 0;
    }
  };
  const text = () => page.locator('main').innerText();
  const submit = (form) => Promise.all([
    page.waitForNavigation(), page.locator(`form[action="/admin/${form}"] [type=submit]`).click()]);

  // Sign in: the link's secret becomes the session's cookie, and the
  // browser lands on /admin/ with the secret gone from the address bar.
  await step('sign-in', async () => {
    await page.goto(link);
    assert.equal(new URL(page.url()).pathname, '/admin/', `signed in at ${page.url()}`);
    assert.equal(new URL(page.url()).search, '');
    const cookie = (await context.cookies()).find((c) => c.name === 'origin-ui');
    assert.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Lax' && cookie.path === '/admin',
      `the session cookie: ${JSON.stringify(cookie)}`);
  });
  await step('overview', async () => {
    await walk.visit('overview', '/');
    assert.match(await text(), /claude-code/);
    assert.ok(await page.locator('main svg').count() > 0, 'the overview draws its chart');
  });
  await step('timeline', async () => {
    await walk.visit('timeline', '/timeline?source=codex&days=3650');
    assert.doesNotMatch(await text(), /7c0de000/, 'the codex filter leaves the Claude Code session out');
    await walk.visit('timeline-filtered', '/timeline?source=claude-code&project=hostile&days=30');
    assert.ok(await page.locator('a[href*="7c0de000-0000-4000-8000-00000000b0b0"]').count() > 0,
      'the filtered timeline links the hostile session');
  });

  // Hostile content renders as text: the prompt's tags are visible words,
  // no script runs (a page error or console line would fail the step), no
  // javascript: link, and the only <script> is our asset.
  const hostileDom = async () => {
    assert.equal(await page.locator('script').count(), 1, 'one script');
    assert.match(await page.locator('script').getAttribute('src'), /^\/admin\/assets\//);
    assert.equal(await page.locator('[href^="javascript:" i], [src^="javascript:" i]').count(), 0,
      'no javascript: link');
    assert.equal(await page.locator('img, iframe, object, embed').count(), 0, 'no embedded element');
    assert.equal(await page.evaluate(() => [...document.querySelectorAll('*')]
      .filter((e) => [...e.attributes].some((x) => x.name.startsWith('on'))).length), 0,
    'no event-handler attribute');
  };
  await step('session', async () => {
    await walk.visit('session', `/session?id=${encodeURIComponent(hostile.id)}`);
    await hostileDom();
    assert.match(await text(), /<script>alert\('pwn'\)<\/script>/, 'the prompt\'s HTML shows as text');
    assert.match(await text(), /Deep Markdown/, 'the reply is rendered as Markdown');
  });
  await step('session-at', async () => {
    await walk.visit('session-at', `/session?id=${encodeURIComponent(hostile.id)}&at=${encodeURIComponent(huge.id)}`);
    assert.equal(await page.locator('.turn.at').count(), 1, 'at= marks the turn holding the event');
  });

  // An event, its provenance chain, and its raw line loaded on request
  // (cut at 4,000 characters with a note).
  await step('event', async () => {
    await walk.visit('event', `/event?id=${encodeURIComponent(huge.id)}`);
    await hostileDom();
    await page.locator('form[data-raw-line] button[type=submit]').click();
    await page.locator('#raw-line pre').waitFor({ timeout: 5000 }).catch(async () => {
      throw new Error(`the raw line did not load: ${await page.locator('#raw-line').innerText()}`);
    });
    assert.match(await page.locator('#raw-line').innerText(), /Cut at 4000 of \d+ characters/);
    walk.clean('raw line');
  });
  await step('source', async () => {
    await walk.visit('source', `/source?id=${encodeURIComponent(prompt.id)}`);
    assert.match(await text(), /7c0de000-0000-4000-8000-00000000b0b0\.jsonl/, 'the chain names the log file');
  });
  await step('search', async () => {
    await walk.visit('search', '/search?q=blue-green');
    assert.match(await text(), /deploy the blue-green/);
    await hostileDom();
  });

  // Remember from the prompt's event page: the entry cites it, author
  // user@testbox, confidence 1.
  let entryId = '';
  await step('remember', async () => {
    await walk.visit('event-remember', `/event?id=${encodeURIComponent(prompt.id)}`);
    await page.locator('form[action="/admin/remember"] textarea[name=text]').fill('The deploy is blue-green <b>really</b>');
    const [res] = await submit('remember');
    entryId = new URL(page.url()).searchParams.get('id') || '';
    assert.match(entryId, /^ent_/, `remember lands on the entry, not ${page.url()}: ${await walk.said()}`);
    await walk.check('entry', res);
    const { entry } = w.origin('show', entryId, '--json');
    assert.equal(entry.text, 'The deploy is blue-green <b>really</b>');
    assert.equal(entry.author, 'user@testbox');
    assert.equal(entry.confidence, 1);
    assert.ok(JSON.stringify(entry).includes(prompt.id), 'the entry cites the event');
    assert.match(await text(), /The deploy is blue-green <b>really<\/b>/);
  });

  // Correct it: a new version; the page shows the new text and the history.
  await step('correct', async () => {
    await page.locator('form[action="/admin/correct"] textarea[name=text]').fill('The deploy is blue-green, twice');
    const [res] = await submit('correct');
    await walk.check('entry-corrected', res);
    const id = new URL(page.url()).searchParams.get('id');
    assert.equal(w.origin('show', id, '--json').entry.text, 'The deploy is blue-green, twice');
    assert.match(await text(), /The deploy is blue-green, twice/);
    assert.match(await text(), /The deploy is blue-green <b>really<\/b>/, 'the history shows the old version');
    await walk.visit('entries', '/entries');
    assert.match(await text(), /blue-green, twice/);
  });

  // Forget the secret's event after its preview.  The plan changes before
  // the POST (an entry now cites the event, so it would be hidden too):
  // 409, nothing forgotten.  Previewed again, it goes through.
  const forgetPreview = `/forget?target=${encodeURIComponent(secret.id)}`;
  await step('forget-conflict', async () => {
    await walk.visit('forget-preview', forgetPreview);
    assert.match(await text(), /\b1 event\b/, 'the preview counts what it would hide');
    assert.ok((await page.content()).includes(secret.id), 'the preview lists the event\'s id');
    w.origin('remember', 'a note on the launch', '--cite', secret.id, '--json');
    await page.locator('#f-reason').fill('a secret pasted by mistake');
    walk.expected.add('status of 409');
    const [res] = await submit('forget');
    await walk.check('forget-conflict', res, 409);
    walk.expected.clear();
    assert.equal(w.origin('show', secret.id, '--json').event.id, secret.id, 'nothing was forgotten');
  });
  let tmb = '';
  await step('forget', async () => {
    await walk.visit('forget-preview-again', forgetPreview);
    assert.match(await text(), /\b1 entry version\b/, 'the new plan holds the citing entry');
    await page.locator('#f-reason').fill('a secret pasted by mistake');
    const [res] = await submit('forget');
    tmb = new URL(page.url()).searchParams.get('id') || '';
    assert.match(tmb, /^tmb_/, `the forget lands on its tombstone, not ${page.url()}: ${await walk.said()}`);
    await walk.check('tombstone', res);
    const forgotten = w.origin('forgotten', '--json');
    const record = (forgotten.tombstones || forgotten).find((t) => t.id === tmb);
    assert.ok(record && record.in_effect && record.reason === 'a secret pasted by mistake',
      `the store has the forget: ${JSON.stringify(record)}`);
    assert.equal(w.originError('show', secret.id, '--json').error.code, 'forgotten');
    assert.match(await text(), /HIDDEN-ZEBRA/, 'the tombstone\'s page shows what it hides');
  });

  // Hidden text on no page but the tombstone's.
  const from = walk.pages.length;
  await step('overview-after', async () => {
    await walk.visit('overview-after', '/');
    assert.match(await text(), new RegExp(tmb), 'the overview lists the forget');
  });
  await step('timeline-after', () => walk.visit('timeline-after', '/timeline?days=30'));
  await step('session-after', () => walk.visit('session-after', `/session?id=${encodeURIComponent(hostile.id)}`));
  await step('event-forgotten', async () => {
    await walk.visit('event-forgotten', `/event?id=${encodeURIComponent(secret.id)}`, 404);
    assert.match(await text(), new RegExp(tmb), 'a forgotten event\'s page names its tombstone');
  });
  await step('search-after', () => walk.visit('search-after', '/search?q=ZEBRA'));
  await step('search-recent-after', () => walk.visit('search-recent-after', '/search?recent=1&tools=1'));
  await step('entries-after', () => walk.visit('entries-after', '/entries?history=1'));
  await step('forgotten', async () => {
    await walk.visit('forgotten', '/forgotten');
    assert.match(await text(), new RegExp(tmb));
  });
  await step('tombstone-again', () => walk.visit('tombstone-again', `/tombstone?id=${tmb}`));
  await step('hidden', () => {
    assert.deepEqual(walk.holding('HIDDEN-ZEBRA', from), ['tombstone-again'],
      'the forgotten text is on the tombstone\'s page alone');
  });

  // Restore from the tombstone's page: it says what comes back; after it the
  // event is visible again in the store and on its page.
  await step('restore', async () => {
    await page.locator('form[action="/admin/restore"] #f-reason').fill('it was not a secret after all');
    const [res] = await submit('restore');
    await walk.check('restored', res);
    assert.ok(w.origin('show', secret.id, '--json').event.text.includes(SECRET), 'the store shows the event again');
    const after = w.origin('forgotten', '--json');
    assert.equal((after.tombstones || after).find((t) => t.id === tmb).in_effect, false);
    await walk.visit('event-restored', `/event?id=${encodeURIComponent(secret.id)}`);
    assert.match(await text(), /HIDDEN-ZEBRA/);
  });

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`ui walk: ${walk.pages.length} pages in ${seconds} s; screenshots in ${shots}`);
  if (failures.length) {
    console.log(`${failures.length} steps failed:\n\n${failures.join('\n\n')}`);
    process.exitCode = 1;
  }
} finally {
  if (browser) await browser.close();
  await w.close();
}
