// SPDX-License-Identifier: MIT
// A smoke test with the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli):
// it launches origin-mcp itself, lists the tools and calls them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { eventHits, ORIGIN_MCP, World } from './harness.mjs';

// The CLI finds its own package.json relative to the working directory, so
// it runs from its build directory.
const build = join(dirname(createRequire(import.meta.url)
  .resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build');

const w = new World();
after(() => w.close());

function inspector(...args) {
  const out = execFileSync(process.execPath, [join(build, 'index.js'), ORIGIN_MCP, ...args],
    { cwd: build, env: w.env, encoding: 'utf8' });
  return JSON.parse(out);
}

test('the inspector CLI lists the tools and calls them', () => {
  w.say(w.claudeLog('s1'), 'u1', 'hello from the inspector smoke test');
  const { tools } = inspector('--method', 'tools/list');
  assert.equal(tools.length, 7);
  const found = inspector('--method', 'tools/call', '--tool-name', 'search',
    '--tool-arg', 'query=inspector', '--tool-arg', 'limit=5');
  assert.equal(found.isError, false);
  const hits = JSON.parse(found.content[0].text);
  assert.equal(eventHits(hits)[0].id, 'claude-code:u1');
  assert.match(eventHits(hits)[0].snippet, /\[inspector\]/);
  const kept = inspector('--method', 'tools/call', '--tool-name', 'remember',
    '--tool-arg', 'kind=memory', '--tool-arg', 'text=the smoke test ran',
    '--tool-arg', 'confidence=0.5', '--tool-arg', 'sources=[{"quote":"smoke test"}]');
  assert.equal(kept.isError, false, kept.content[0].text);
  const { entry } = JSON.parse(kept.content[0].text);
  assert.equal(entry.author, 'inspector-cli@testbox');
  const bad = inspector('--method', 'tools/call', '--tool-name', 'get', '--tool-arg', 'id=nope');
  assert.equal(bad.isError, true);
});
