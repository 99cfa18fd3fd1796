// SPDX-License-Identifier: MIT
// What an agent gets from origin-mcp's tools, through the SDK client
// (issue 13, points 7 and 8): strict arguments (an unknown argument or a
// wrong type is a tool error naming the valid ones), pages (offset, more,
// next_offset) that together hold every hit of one larger answer,
// structuredContent that validates against each tool's outputSchema from
// protocol 2025-06-18 on and neither before, no null anywhere, ranks that
// read as ranks, and the size targets of docs/performance.md on a corpus
// shaped like the benchmark's (messages of about 800 characters, tool
// results of 1 to 3 KB): a default search at most 6,000 characters, one
// with tool events at most 12,000, a page of a session's events at most
// 8,000, each with the hits the operation answers the CLI (the same hits,
// in a smaller form).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ORIGIN_MCP, World, call, eventHits, toolError } from './harness.mjs';

// A deterministic corpus: one Claude Code session of 150 messages, every
// third assistant turn a tool call and its result.
function corpus(w) {
  let seed = 7;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const words = ('the store keeps every line of the log we parse index and search sessions '
    + 'with a cache for the parser so that deploy and release stay quick when the daemon '
    + 'starts again after a crash or an upgrade of schema and its migration').split(' ');
  const prose = (chars, extra) => {
    let s = '';
    while (s.length < chars) {
      s += words[rnd(words.length)] + (rnd(9) === 0 ? '. ' : ' ');
      if (extra && rnd(40) === 0) s += extra + ' ';
    }
    return s.trim();
  };
  const uuid = (n) => `0b6a3f1c-${String(n).padStart(4, '0')}-4000-8000-${String(n).padStart(12, '0')}`;
  const session = uuid(9999);
  const file = w.claudeLog(session);
  mkdirSync(dirname(file), { recursive: true });
  let n = 0;
  const line = (type, message) => {
    n += 1;
    const ts = new Date(Date.UTC(2026, 0, 5, 10, 0, n)).toISOString();
    appendFileSync(file, JSON.stringify({
      type, uuid: uuid(n), sessionId: session, timestamp: ts, cwd: '/home/dev/app',
      gitBranch: 'main', version: '2.1.12', message,
    }) + '\n');
  };
  for (let i = 0; i < 75; ++i) {
    line('user', { role: 'user', content: prose(300 + rnd(500), i % 3 === 0 ? 'build' : 'release') });
    line('assistant', { role: 'assistant', model: 'claude-opus-4', content: [
      { type: 'text', text: prose(500 + rnd(600), i % 2 === 0 ? 'build' : '') }] });
    if (i % 3 === 2) {
      const id = `toolu_${i}`;
      line('assistant', { role: 'assistant', model: 'claude-opus-4', content: [
        { type: 'tool_use', id, name: 'Bash', input: { command: `grep -rn retry_handler src/ # ${i}` } }] });
      line('user', { role: 'user', content: [
        { type: 'tool_result', tool_use_id: id, content: prose(1000 + rnd(2400), 'retry handler') }] });
    }
  }
  return `claude-code:${session}`;
}

// Every value of `v`, with its path: none may be null.
function nulls(v, path = '') {
  if (v === null) return [path];
  if (typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => nulls(x, `${path}.${k}`));
}

describe('origin-mcp answers for a context window', () => {
  const w = new World();
  let client, session, tools;
  const validator = new AjvJsonSchemaValidator();

  before(async () => {
    session = corpus(w);
    client = await w.client('claude-code');  // 2025-11-25: structured
    await w.indexed();  // ranked pages compared with one another
    tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  });
  after(async () => {
    await client?.close();
    await w.close();
  });

  // A tool's answer: the text block parsed, checked against structuredContent
  // and the tool's outputSchema (the SDK client validates it too).
  async function answer(name, args) {
    const r = await client.callTool({ name, arguments: args });
    assert.equal(r.isError, false, r.content[0].text);
    const text = r.content[0].text;
    const parsed = JSON.parse(text);
    assert.deepEqual(r.structuredContent, parsed, `${name}: structuredContent is the text's JSON`);
    const v = validator.getValidator(tools.get(name).outputSchema)(r.structuredContent);
    assert.ok(v.valid, `${name}: ${v.errorMessage}`);
    assert.deepEqual(nulls(parsed), [], `${name} ${JSON.stringify(args)}: no null`);
    return { text, parsed };
  }

  test('unknown arguments and wrong types are tool errors naming the valid ones', async () => {
    // The example: `all` is not an argument (include_tools is).
    const msg = await toolError(client, 'search', { query: 'build', all: true });
    assert.match(msg, /unknown argument 'all'/);
    for (const k of Object.keys(tools.get('search').inputSchema.properties)) assert.ok(msg.includes(k), msg);
    // Every tool: its own list of valid arguments.
    for (const [name, t] of tools) {
      const m = await toolError(client, name, { bogus: 1 });
      assert.match(m, /unknown argument 'bogus'/, name);
      assert.ok(m.endsWith(Object.keys(t.inputSchema.properties).join(', ')), `${name}: ${m}`);
    }
    // Inside a source of remember.
    assert.match(await toolError(client, 'remember', {
      kind: 'knowledge', text: 't', confidence: 1, sources: [{ event: 'x' }],
    }), /unknown field 'event' in sources\[0\]; the valid ones are: event_id, quote/);
    const wrong = [
      ['search', { query: 'build', limit: '5' }, /limit must be an integer/],
      ['search', { query: 'build', include_tools: 'yes' }, /include_tools must be true or false/],
      ['search', { query: 7 }, /query must be a string/],
      ['search', { query: 'x', offset: -1 }, /offset must be at least 0/],
      ['timeline', { session, limit: 2.5 }, /limit must be an integer/],
      ['remember', { kind: 'knowledge', text: 't', confidence: '1', sources: [{ quote: 'x' }] }, /confidence must be a number/],
      ['remember', { kind: 'knowledge', text: 't', confidence: 1, sources: [] }, /sources needs at least 1 item/],
      ['remember', { kind: 'knowledge', text: 't', confidence: 1, sources: 'x' }, /sources must be a list/],
      ['remember', { kind: 'knowledge', text: 't', confidence: 1, sources: [{ quote: 5 }] }, /sources\[0\]\.quote must be a string/],
      ['get', { id: 5 }, /id must be a string/],
    ];
    for (const [name, args, want] of wrong)
      assert.match(await toolError(client, name, args), want, `${name} ${JSON.stringify(args)}`);
    // A null argument is one not given.
    assert.equal(eventHits(await call(client, 'search', { query: 'build', kind: null })).length, 20);
  });

  test('descriptions say what separates the kinds and which ids are taken', () => {
    for (const name of ['search', 'remember', 'correct'])
      for (const k of ['memory is what happened', 'knowledge is a stable fact', 'cognition is a model of the user'])
        assert.ok(tools.get(name).description.includes(k), `${name}: ${k}`);
    const idDoc = (name, key) => tools.get(name).inputSchema.properties[key].description;
    for (const name of ['get', 'sources', 'correct']) assert.match(idDoc(name, 'id'), /its full id, its short ref, or a unique prefix of either/);
    assert.match(idDoc('timeline', 'session'), /full id, its short ref, a unique prefix of either, or its bare UUID/);
    assert.match(idDoc('forget', 'id'), /full id, a unique prefix of it or of its ref, or a session's bare UUID/);
  });

  test('search pages: offset, more and next_offset hold every hit once, ranked', async () => {
    const whole = (await answer('search', { query: 'build', limit: 50 })).parsed;
    assert.equal(whole.order, 'relevance');
    assert.equal(whole.more, true);
    const ids = [];
    let offset = 0;
    for (;;) {
      const page = (await answer('search', { query: 'build', limit: 10, offset })).parsed;
      const hits = eventHits(page);
      hits.forEach((h, i) => assert.equal(h.rank, offset + i + 1));
      ids.push(...hits.map((h) => h.id));
      if (!page.more) break;
      assert.equal(page.next_offset, offset + 10);
      offset = page.next_offset;
      if (offset >= 50) break;
    }
    assert.deepEqual(ids, eventHits(whole).map((h) => h.id));
    // The hits come under their session, listed once with its title.
    assert.deepEqual(whole.sessions.map((s) => s.id), [session]);
    assert.match(whole.sessions[0].title, /\w/);
    assert.deepEqual(whole.events, []);
    for (const h of eventHits(whole)) {
      assert.match(h.snippet, /\[build\]/i);
      assert.equal(h.text, undefined);  // get gives the text
    }
    // Past the end: an empty page, no more.
    const end = (await answer('search', { query: 'build', offset: 900 })).parsed;
    assert.deepEqual([eventHits(end).length, end.more, end.next_offset], [0, false, undefined]);
  });

  test("a session's timeline in pages, each event a preview; get gives the whole text", async () => {
    const all = w.origin('timeline', session, '--json', '--limit', '500').events.map((e) => e.id);
    assert.ok(all.length > 100);
    const ids = [];
    let offset = 0;
    for (let more = true; more;) {
      const page = (await answer('timeline', { session, limit: 40, offset })).parsed;
      ids.push(...page.events.map((e) => e.id));
      more = page.more;
      if (more) offset = page.next_offset;
    }
    assert.deepEqual(ids, all);
    // Previews share the page's budget: fewer events, longer previews.
    const first = (await answer('timeline', { session })).parsed;
    assert.equal(first.session.id, session);
    const short = (await answer('timeline', { session, limit: 5 })).parsed;
    const preview = (p) => p.events[0].text.replace(/…$/, '');
    assert.ok(preview(short).length > preview(first).length);
    assert.ok(first.events[0].text.endsWith('…'));
    const got = (await answer('get', { id: first.events[0].id })).parsed;
    assert.ok(got.event.text.replace(/\s+/g, ' ').startsWith(preview(first)));
    assert.match(got.event.time, /\.\d{3}[+-]\d\d:\d\d$/);  // to the millisecond
    assert.match(first.events[0].time, /T\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);  // to the second
    // The sessions of a range: no more than asked, and `more` says so.
    const list = (await answer('timeline', { days: 100000, limit: 1 })).parsed;
    assert.deepEqual([list.sessions.length, list.more], [1, false]);
  });

  test('size targets, with the hits the operation gives the CLI', async (t) => {
    const cli = (args) => w.origin('search', ...args, '--json', '--limit', '20');
    const cases = [
      [{ query: 'build' }, ['build'], 6000],
      [{ query: 'retry handler', include_tools: true }, ['retry handler', '--all'], 12000],
    ];
    for (const [args, cliArgs, target] of cases) {
      const { text, parsed } = await answer('search', args);
      assert.ok(text.length <= target, `${JSON.stringify(args)}: ${text.length} > ${target}`);
      t.diagnostic(`search ${JSON.stringify(args)}: ${text.length} characters`);
      const want = cli(cliArgs);
      assert.ok(want.events.length === 20, 'a full page');
      assert.deepEqual(eventHits(parsed).map((h) => h.id), want.events.map((h) => h.id));
      assert.deepEqual(parsed.entries.map((h) => h.id), want.entries.map((h) => h.id));
    }
    const { text, parsed } = await answer('timeline', { session });
    assert.ok(text.length <= 8000, `timeline page: ${text.length} > 8000`);
    t.diagnostic(`a page of 50 events: ${text.length} characters`);
    assert.deepEqual(parsed.events.map((e) => e.id),
      w.origin('timeline', session, '--json', '--limit', '50').events.map((e) => e.id));
  });

  test('protocols before 2025-06-18: no outputSchema, no structuredContent', async () => {
    for (const [version, structured] of [['2025-03-26', false], ['2024-11-05', false], ['2025-06-18', true]]) {
      const t = new StdioClientTransport({ command: ORIGIN_MCP, env: w.env, stderr: 'pipe' });
      const replies = new Map();
      const waiting = new Map();
      t.onmessage = (m) => (waiting.get(m.id) ?? ((x) => replies.set(m.id, x)))(m);
      const ask = (id, method, params) => new Promise((resolve) => {
        waiting.set(id, resolve);
        t.send({ jsonrpc: '2.0', id, method, params });
      });
      await t.start();
      await ask(1, 'initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old', version: '1' } });
      const listed = (await ask(2, 'tools/list', {})).result.tools;
      assert.equal(listed.every((x) => 'outputSchema' in x), structured, version);
      assert.equal(listed.some((x) => 'outputSchema' in x), structured, version);
      const r = (await ask(3, 'tools/call', { name: 'search', arguments: { query: 'build', limit: 2 } })).result;
      assert.equal('structuredContent' in r, structured, version);
      assert.equal(eventHits(JSON.parse(r.content[0].text)).length, 2);
      await t.close();
    }
  });
});
