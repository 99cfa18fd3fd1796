// SPDX-License-Identifier: MIT
// Makes docs/ui-overview.png, the README's picture of origin ui: the
// overview of a store of the agents' fixture logs (tests/fixtures) and a
// made-up session of the last twelve days, so the chart has bars; light,
// 1280 by 800.  Not a test; run it by hand after the overview changes:
//   ORIGINSD=build/daemon/originsd ORIGIN=build/client/origin node tests/browser/readme-shot.mjs
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { World } from './fixture.mjs';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'ui-overview.png');
const w = new World({ hostile: false });
try {
  const dir = join(w.env.CLAUDE_CONFIG_DIR, 'projects', '-home-dev-shop');
  mkdirSync(dir, { recursive: true });
  const session = '5e55a000-0000-4000-8000-000000000001';
  for (let n = 1; n <= 60; ++n) {
    const day = Math.floor((n * 7) % 12);
    appendFileSync(join(dir, `${session}.jsonl`), JSON.stringify({
      type: n % 2 ? 'user' : 'assistant', uuid: `5e55a000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      sessionId: session, timestamp: new Date(Date.now() - day * 86400000 - (60 - n) * 60000).toISOString(),
      cwd: '/home/dev/shop', version: '2.1.12',
      message: n % 2 ? { role: 'user', content: `Step ${n}: tidy the checkout tests` }
        : { role: 'assistant', content: [{ type: 'text', text: `Done with step ${n - 1}.` }] },
    }) + '\n');
  }
  w.origin('sync', '--json');
  const link = await w.startUi();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  await page.goto(link);
  await page.screenshot({ path: out });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  await w.close();
}
