// SPDX-License-Identifier: MIT
// 16 agents at once, each with its own origin-mcp, search and remember while
// the daemon imports a large log: no error, no lost entry, no busy timeout
// (design.md: one writer, readers on their own connections).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { call, eventHits, World } from './harness.mjs';

const AGENTS = 16;
const SEARCHES = 4;
const REMEMBERS = 3;

const w = new World();
after(() => w.close());

test('16 shims search and remember during a large import', async (t) => {
  const small = w.claudeLog('small');
  for (let i = 0; i < AGENTS; ++i) w.say(small, `q${i}`, `agent ${i} decided to use plan number ${i}`);
  const first = await w.client('setup');
  await call(first, 'search', { query: 'plan' });  // the first sync is done
  await first.close();

  // The large import: 96 MiB in 8 files, written while the daemon watches.
  const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima'.split(' ');
  const files = 8;
  const linesPerFile = 12000;
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let f = 0; f < files; ++f) {
    const lines = [];
    for (let i = 0; i < linesPerFile; ++i) {
      let text = '';
      while (text.length < 950) text += words[rnd() % words.length] + ' ';
      lines.push(JSON.stringify({
        type: 'user', uuid: `big-${f}-${i}`, sessionId: `big-${f}`,
        timestamp: '2026-01-04T10:00:00.000Z', cwd: '/home/dev/app', version: '2.1.12',
        message: { role: 'user', content: text },
      }));
    }
    writeFileSync(w.claudeLog(`big-${f}`), lines.join('\n') + '\n');
  }
  const total = AGENTS + files * linesPerFile;

  const clients = await Promise.all(
    Array.from({ length: AGENTS }, (_, i) => w.client(`agent-${i}`)));
  const during = w.origin('status', '--json').store.events;
  const written = [];
  await Promise.all(clients.map(async (c, i) => {
    for (let k = 0; k < Math.max(SEARCHES, REMEMBERS); ++k) {
      if (k < SEARCHES) {
        const r = await call(c, 'search', { query: `plan number ${i}`, limit: 5 });
        assert.ok(eventHits(r).some((e) => e.id === `claude-code:q${i}`), JSON.stringify(r));
      }
      if (k < REMEMBERS) {
        const { entry } = await call(c, 'remember', {
          kind: 'memory', text: `agent ${i} note ${k}`, confidence: 0.8,
          sources: [k % 2 ? { event_id: `claude-code:q${i}` } : { quote: `use plan number ${i}` }],
        });
        assert.equal(entry.author, `agent-${i}@testbox`);
        written.push(entry.id);
      }
    }
  }));
  await Promise.all(clients.map((c) => c.close()));
  t.diagnostic(`events: ${during} when the agents began, ` +
    `${w.origin('status', '--json').store.events} when they were done, of ${total}`);
  // The import was under way while the agents worked.
  assert.ok(during < total, `the import was over before the agents started (${during})`);
  // Every entry is there, once.
  const all = w.origin('entries', '--json', '--limit', '1000');
  const ids = new Set(all.entries.map((e) => e.id));
  assert.equal(written.length, AGENTS * REMEMBERS);
  for (const id of written) assert.ok(ids.has(id), id);
  w.origin('sync', '--json');
  assert.equal(w.origin('status', '--json').store.events, total);
});
