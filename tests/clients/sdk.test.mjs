// SPDX-License-Identifier: MIT
// origin-mcp with the official TypeScript SDK (@modelcontextprotocol/sdk):
// its Client over StdioClientTransport, as agents built on it connect.  The
// handshake with every protocol version and an unknown one, tools/list
// against the rules of ../shared/spec/mcp.md, every tool with valid and
// invalid input, the scenario "an agent writes a line, then remembers
// quoting it" (invariant 1: sources returns that line), batches, and raw
// NDJSON edge cases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ORIGIN_MCP, World, call, eventHits, toolError } from './harness.mjs';

describe('origin-mcp with the SDK client', () => {
  const w = new World();
  const log = w.claudeLog('s1');
  let client;

  before(async () => {
    w.say(log, 'u1', 'We chose SQLite for the store');
    client = await w.client('claude-code');  // starts originsd
  });
  after(async () => {
    await client?.close();
    await w.close();
  });

  test('initialize echoes each supported version and answers others with the latest', async () => {
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2099-01-01']) {
      const t = new StdioClientTransport({ command: ORIGIN_MCP, env: w.env, stderr: 'pipe' });
      const answer = new Promise((resolve, reject) => {
        t.onmessage = resolve;
        t.onerror = reject;
      });
      await t.start();
      await t.send({
        jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      const r = (await answer).result;
      assert.equal(r.protocolVersion, version === '2099-01-01' ? '2025-11-25' : version);
      assert.equal(r.serverInfo.name, 'origin');
      assert.ok(r.capabilities.tools);
      assert.ok(r.instructions.length > 0 && r.instructions.length < 2048);
      await t.close();
    }
    // The SDK client's own handshake (2025-11-25).
    assert.equal(client.getServerVersion().name, 'origin');
    assert.ok(client.getInstructions().includes('remember'));
    await client.ping();
  });

  test('tools/list: seven tools that follow the rules', async () => {
    const { tools, nextCursor } = await client.listTools();
    assert.equal(nextCursor, undefined);
    assert.deepEqual(tools.map((t) => t.name).sort(),
      ['correct', 'forget', 'get', 'remember', 'search', 'sources', 'timeline']);
    for (const t of tools) {
      assert.match(t.name, /^[a-zA-Z0-9_-]+$/);
      assert.ok(t.description.length > 0 && t.description.length < 2048, t.name);
      assert.equal(t.inputSchema.type, 'object');
      for (const k of ['oneOf', 'anyOf', 'allOf']) assert.equal(t.inputSchema[k], undefined);
    }
    assert.equal(tools.find((t) => t.name === 'forget').annotations.destructiveHint, true);
    assert.equal(tools.find((t) => t.name === 'search').annotations.readOnlyHint, true);
    // A cursor is accepted; there is nothing after the seven.
    assert.equal((await client.listTools({ cursor: 'x' })).tools.length, 7);
  });

  test('an agent writes a line, then remembers quoting it; sources returns the line', async () => {
    const line = w.say(log, 'u2', 'The catalog deploys with blue green');
    const { entry } = await call(client, 'remember', {
      kind: 'knowledge', text: 'catalog deploys blue-green', confidence: 0.9,
      sources: [{ quote: 'deploys with BLUE green' }],
    });
    assert.equal(entry.author, 'claude-code@testbox');
    assert.equal(entry.imported, false);
    assert.equal(entry.sources[0].event_id, 'claude-code:u2');
    assert.match(entry.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    const src = await call(client, 'sources', { id: entry.id });
    assert.equal(src.sources[0].raw + '\n', line);  // invariant 1
  });

  test('every tool with valid input', async () => {
    const hits = await call(client, 'search', { query: 'catalog', since: '2026-01-01' });
    assert.equal(hits.entries.length, 1);
    assert.equal(eventHits(hits).length, 1);
    // A range's ends also as a time ago, as the CLI takes them.
    assert.equal(eventHits(await call(client, 'search', { query: 'catalog', since: '3650d' })).length, 1);
    assert.equal(eventHits(await call(client, 'search', { query: 'catalog', until: '3650d' })).length, 0);
    const id = hits.entries[0].id;
    const tl = await call(client, 'timeline', { days: 100000 });
    assert.equal(tl.sessions.length, 1);
    const session = await call(client, 'timeline', { session: tl.sessions[0].id });
    assert.equal(session.events.length, 2);
    const got = await call(client, 'get', { id });
    assert.equal(got.entry.id, id);
    assert.equal((await call(client, 'get', { id: 'claude-code:u1' })).event.text,
      'We chose SQLite for the store');
    assert.equal((await call(client, 'sources', { id: 'claude-code:u1' })).sources.length, 1);
    const fixed = await call(client, 'correct', { id, text: 'catalog deploys blue-green, twice a day' });
    assert.equal(fixed.entry.supersedes, id);
    const forgot = await call(client, 'forget', { id: 'claude-code:u1', reason: 'the user asked' });
    assert.equal(forgot.recorded, true);
    assert.match(await toolError(client, 'get', { id: 'claude-code:u1' }), /forgotten/);
    const none = await call(client, 'search', { query: 'SQLite' });
    assert.equal(eventHits(none).length + none.entries.length, 0);
  });

  test('answers stay under about 20,000 tokens', async () => {
    const big = w.claudeLog('s2');
    for (let i = 0; i < 40; ++i) w.say(big, `b${i}`, `bulky ${i} ` + 'x'.repeat(10000), 's2');
    w.say(big, 'huge', 'huge ' + 'y'.repeat(300000), 's2');
    await call(client, 'remember', {  // ingests s2 first
      kind: 'memory', text: 'bulky answers', confidence: 0.5, sources: [{ event_id: 'claude-code:u2' }],
    });
    const answers = [
      await client.callTool({ name: 'timeline', arguments: { session: 'claude-code:s2', limit: 200 } }),
      await client.callTool({ name: 'search', arguments: { query: 'bulky', limit: 50 } }),
      await client.callTool({ name: 'get', arguments: { id: 'claude-code:huge' } }),
      await client.callTool({ name: 'sources', arguments: { id: 'claude-code:huge' } }),
    ];
    for (const r of answers) {
      assert.equal(r.isError, false, r.content[0].text);
      assert.ok(r.content[0].text.length <= 80000, `${r.content[0].text.length} characters`);
      JSON.parse(r.content[0].text);
    }
    // A page of 41 events, each a preview (get gives a text).
    const tl = JSON.parse(answers[0].content[0].text);
    assert.equal(tl.events.length, 41);
    assert.match(tl.events[40].text, /^huge y+…$/);
    // One long text, or one long line: cut, saying how to read the rest.
    assert.match(JSON.parse(answers[2].content[0].text).event.text,
      /^huge y+ \[\.\.\. cut: \d+ of 300005 bytes left out; the whole text: the sources tool gives its log file and line\]$/);
    const src = JSON.parse(answers[3].content[0].text).sources[0];
    assert.match(src.raw, /cut: \d+ of \d+ bytes left out; the whole line is in the log file, at the line number given\]$/);
    assert.ok(src.file.endsWith('s2.jsonl') && src.line === 41);
  });

  test('every tool with invalid input: tool errors with readable messages', async () => {
    const cases = [
      ['search', { query: 'x', since: 'last tuesday' }, /ISO 8601.*a time ago such as 30m/],
      ['remember', { text: 'x', kind: 'knowledge', confidence: 1, sources: [{ event_id: 'claude-code:u1' }], valid_to: '2d' }, /valid_to is not an ISO 8601/],
      ['search', { query: 'x', limit: 500 }, /at most 50/],
      ['search', { query: 'x', scope: 'everything' }, /scope/],
      ['timeline', { days: 'seven' }, /days/],
      ['timeline', { session: 'claude-code:nope' }, /no session/],
      ['get', {}, /id/],
      ['get', { id: 'claude-code:nope' }, /no event or entry/],
      ['sources', { id: 'ent_nope' }, /no event or entry/],
      ['remember', { kind: 'fact', text: 'x', confidence: 1, sources: [{ event_id: 'claude-code:u2' }] }, /kind must be/],
      ['remember', { kind: 'memory', text: 'x', confidence: 1, sources: [{ quote: 'never said' }] }, /no message or tool result/],
      ['remember', { kind: 'memory', text: 'x', confidence: 7, sources: [{ event_id: 'claude-code:u2' }] }, /confidence/],
      ['correct', { id: 'ent_nope', text: 'y' }, /ent_nope/],
      ['forget', { id: 'claude-code:u2', reason: '  ' }, /reason/],
      ['forget', { id: 'claude-code:u2' }, /reason/],
    ];
    for (const [tool, args, want] of cases)
      assert.match(await toolError(client, tool, args), want, `${tool} ${JSON.stringify(args)}`);
    // An unknown tool, and restore (there is none), are JSON-RPC errors.
    for (const name of ['nope', 'restore'])
      await assert.rejects(client.callTool({ name, arguments: { id: 'x', reason: 'r' } }),
        (e) => e.code === -32602);
  });
});

describe('ids agents type, and forgetting a session (dry_run)', () => {
  const w = new World();
  const a = w.claudeLog('4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71');
  let client;

  before(async () => {
    w.say(a, 'a1', 'delta one', '4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71');
    w.say(a, 'a2', 'delta two', '4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71');
    client = await w.client('claude-code');
  });
  after(async () => {
    await client?.close();
    await w.close();
  });

  test('a reference, a prefix and a bare UUID are ids; an ambiguous prefix is a tool error naming the candidates', async () => {
    const tl = await call(client, 'timeline', { session: '4f0c2a91' });
    assert.equal(tl.session.id, 'claude-code:4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71');
    assert.equal(tl.events.length, 2);
    assert.match(tl.session.ref, /^[0-9a-hjkmnp-tv-z]{5,12}$/);
    assert.equal((await call(client, 'timeline', { session: tl.session.ref })).session.id, tl.session.id);
    // A search hit carries the reference a person types into the CLI.
    const hit = eventHits(await call(client, 'search', { query: 'delta one' }))[0];
    const { ref, id } = hit;
    assert.equal(id, tl.events[0].id);
    assert.match(ref, /^[0-9a-hjkmnp-tv-z]{5,12}$/);
    assert.equal((await call(client, 'get', { id: ref })).event.id, id);
    assert.equal((await call(client, 'sources', { id: ref.slice(0, 4) })).sources.length, 1);
    const err = await toolError(client, 'get', { id: 'claude-code:a' });
    assert.match(err, /ambiguous/);
    assert.match(err, /claude-code:a1/);
    assert.match(err, /claude-code:a2/);
  });

  test('forget with dry_run says what it would hide and hides nothing; then a session is forgotten whole', async () => {
    const plan = await call(client, 'forget', { id: '4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71', reason: 'the user asked', dry_run: true });
    assert.equal(plan.dry_run, true);
    assert.equal(plan.recorded, false);
    assert.equal(plan.target_kind, 'session');
    assert.deepEqual(plan.events.sort(), ['claude-code:a1', 'claude-code:a2']);
    assert.equal(eventHits(await call(client, 'search', { query: 'delta' })).length, 2);
    const done = await call(client, 'forget', { id: '4f0c2a91', reason: 'the user asked' });
    assert.equal(done.recorded, true);
    assert.equal(done.events_count, 2);
    // A line the agent writes later in that session stays hidden (invariant 2).
    w.say(a, 'a3', 'delta three', '4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71');
    assert.equal(eventHits(await call(client, 'search', { query: 'delta' })).length, 0);
    assert.match(await toolError(client, 'get', { id: 'claude-code:a3' }), /forgotten/);
  });
});

describe('origin-mcp on the wire (NDJSON)', () => {
  const w = new World();
  after(() => w.close());

  // Raw lines in, every stdout line out; stdin is closed after the last.
  function exchange(lines, replies) {
    return new Promise((resolve, reject) => {
      const p = spawn(ORIGIN_MCP, [], { env: w.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      const got = [];
      p.stdout.on('data', (d) => {
        out += d;
        let i;
        while ((i = out.indexOf('\n')) >= 0) {
          got.push(JSON.parse(out.slice(0, i)));  // only JSON ever
          out = out.slice(i + 1);
          if (got.length === replies) p.stdin.end();
        }
      });
      p.on('error', reject);
      p.on('exit', (code) => resolve({ code, got, rest: out }));
      for (const l of lines) p.stdin.write(l + '\n');
      if (replies === 0) p.stdin.end();
    });
  }

  test('parse errors, batches, notifications, and exit on EOF', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const { code, got, rest } = await exchange([
      init,
      'this is not json',
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } },
      ]),
      JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/initialized' }]),  // no answer
      '[]',
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'nope' }),
    ], 5);
    assert.equal(code, 0);
    assert.equal(rest, '');
    // Answers to the raw lines; the batch's comes when its search is done.
    const batch = got.filter(Array.isArray);
    const one = got.filter((m) => !Array.isArray(m));
    const byCode = (c) => one.filter((m) => m.error?.code === c);
    assert.equal(one.find((m) => m.id === 0).result.protocolVersion, '2025-03-26');
    assert.equal(byCode(-32700).length, 1);
    assert.equal(byCode(-32700)[0].id, null);
    assert.equal(byCode(-32600).length, 1);  // the empty batch
    assert.equal(byCode(-32601)[0].id, 4);
    // The batch: one array holding its three answers.
    assert.equal(batch.length, 1);
    assert.deepEqual(batch[0].map((r) => r.id).sort(), [1, 2, 3]);
    for (const r of batch[0]) assert.ok(r.result, JSON.stringify(r));
    for (const m of got.flat()) assert.equal(m.jsonrpc, '2.0');
  });

  test('odd messages get JSON-RPC errors, and the server goes on', async () => {
    const odd = [
      '5', '"x"', 'null', '[1,2]', '{}',
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      '{"jsonrpc":"2.0","id":true,"method":"ping"}',
      '{"jsonrpc":"2.0","id":2,"method":5}',
      '{"jsonrpc":"1.0","id":3,"method":"ping"}',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[]}',
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}}',
      '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get","arguments":"x"}}',
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get","arguments":{"id":["a"]}}}',
      '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search","arguments":{"limit":-1}}}',
      '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"timeline","arguments":{"since":12}}}',
      '{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":5,"clientInfo":"x"}}',
      '[' .repeat(100000),
      '{"jsonrpc":"2.0","id":11,"method":"ping"}',
    ];
    const { code, got } = await exchange(odd, odd.length - 1);
    assert.equal(code, 0);
    const answers = got.flat();
    for (const m of answers) assert.equal(m.jsonrpc, '2.0');
    const byId = new Map(answers.filter((m) => m.id !== null).map((m) => [m.id, m]));
    assert.deepEqual(byId.get(11).result, {});  // still serving
    assert.ok(byId.get(10).result);  // initialize: a version it knows instead
    for (const id of [4, 5]) assert.equal(byId.get(id).error.code, -32602);
    for (const id of [6, 7, 8, 9]) assert.equal(byId.get(id).result.isError, true, JSON.stringify(byId.get(id)));
    assert.ok(answers.filter((m) => m.error?.code === -32600).length >= 8);
  });
});
