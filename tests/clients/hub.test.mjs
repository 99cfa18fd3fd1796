// SPDX-License-Identifier: MIT
// A hub's /mcp (origin serve; issue 17) with real clients over HTTP: the
// SDK's StreamableHTTPClientTransport with a bearer token, as a cloud agent
// connects, calling every tool; and the official conformance suite
// (@modelcontextprotocol/conformance, pinned in the lock file) against it.
// The suite sends no token, so it reaches the hub through a small proxy
// that adds one and passes every other header (Host and Origin included)
// as the suite sent it: the hub under test is the real one, token checks on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { World, eventHits } from './harness.mjs';
import { need } from '../support/world.mjs';

/** originsd as a hub on a free port, with the world's store; resolves its port. */
function startHub(w) {
  const p = spawn(need('ORIGINSD'), ['--foreground', '--hub', '--port', '0'], {
    env: w.env, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const port = new Promise((resolve, reject) => {
    p.stderr.on('data', (chunk) => {
      log += chunk;
      const m = /hub: serving http:\/\/[^ ]*:(\d+) /.exec(log);
      if (m) resolve(Number(m[1]));
    });
    p.on('exit', (code) => reject(new Error(`originsd exited (${code}):\n${log}`)));
  });
  return { process: p, port, log: () => log };
}

async function stopHub(hub) {
  if (hub.process.exitCode !== null) return;
  const exited = new Promise((resolve) => hub.process.on('exit', resolve));
  hub.process.kill('SIGTERM');
  assert.equal(await exited, 0);
}

async function httpClient(port, headers) {
  const client = new Client({ name: 'cloud-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers },
  });
  await client.connect(transport);
  return client;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return r.structuredContent ?? JSON.parse(r.content[0].text);
}

describe('the hub\'s /mcp over HTTP', () => {
  const w = new World();
  let hub, port, token;

  before(async () => {
    w.say(w.claudeLog('s1'), 'u1', 'We chose SQLite for the store');
    w.say(w.claudeLog('s1'), 'u2', 'The catalog deploys with blue green');
    hub = startHub(w);
    port = await hub.port;
    token = w.origin('token', 'create', 'ci', '--json').token;
    await w.indexed();
  });
  after(async () => {
    if (hub) await stopHub(hub);
    await w.close();
  });

  test('the SDK client with a bearer token calls every tool; writes are by <agent>@<token>', async () => {
    const client = await httpClient(port, {
      Authorization: `Bearer ${token}`, 'X-Origin-Client': 'cloud-test',
    });
    assert.equal(client.getServerVersion().name, 'origin');
    await client.ping();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(),
      ['correct', 'forget', 'get', 'remember', 'search', 'sources', 'timeline']);
    const hits = await call(client, 'search', { query: 'catalog' });
    assert.equal(eventHits(hits).length, 1);
    const tl = await call(client, 'timeline', { days: 100000 });
    assert.equal(tl.sessions.length, 1);
    assert.equal((await call(client, 'timeline', { session: tl.sessions[0].id })).events.length, 2);
    assert.equal((await call(client, 'get', { id: 'claude-code:u1' })).event.text,
      'We chose SQLite for the store');
    const src = await call(client, 'sources', { id: 'claude-code:u2' });
    assert.equal(JSON.parse(src.sources[0].raw).uuid, 'u2');  // invariant 1, over HTTP
    const { entry } = await call(client, 'remember', {
      kind: 'knowledge', text: 'the catalog deploys blue-green', confidence: 0.9,
      sources: [{ quote: 'deploys with blue green' }],
    });
    assert.equal(entry.author, 'cloud-test@ci');
    assert.equal(entry.sources[0].event_id, 'claude-code:u2');
    const fixed = await call(client, 'correct', { id: entry.id, text: 'the catalog deploys blue-green, daily' });
    assert.equal(fixed.entry.supersedes, entry.id);
    assert.equal(fixed.entry.author, 'cloud-test@ci');
    const forgot = await call(client, 'forget', { id: 'claude-code:u1', reason: 'the user asked' });
    assert.equal(forgot.recorded, true);
    const r = await client.callTool({ name: 'get', arguments: { id: 'claude-code:u1' } });
    assert.ok(r.isError);
    assert.match(r.content[0].text, /forgotten/);
    await client.close();
    // Without X-Origin-Client, the token's name alone.
    const bare = await httpClient(port, { Authorization: `Bearer ${token}` });
    const second = await call(bare, 'remember', {
      kind: 'knowledge', text: 'the store is SQLite', confidence: 1,
      sources: [{ event_id: 'claude-code:u2' }],
    });
    assert.equal(second.entry.author, 'ci');
    await bare.close();
  });

  test('a revoked or missing token: the SDK client cannot connect', async () => {
    await assert.rejects(httpClient(port, {}), /401|Unauthorized|token/i);
    const other = w.origin('token', 'create', 'gone', '--json').token;
    w.origin('token', 'revoke', 'gone');
    await assert.rejects(httpClient(port, { Authorization: `Bearer ${other}` }), /401|Unauthorized|token/i);
  });

  test('the official conformance suite passes against /mcp', async () => {
    // A proxy that adds the token and changes nothing else.
    const proxy = http.createServer((req, res) => {
      const up = http.request({
        host: '127.0.0.1', port, method: req.method, path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      }, (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      });
      up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
      req.pipe(up);
    });
    await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://localhost:${proxy.address().port}/mcp`;
    const out = mkdtempSync(join(tmpdir(), 'origin-conformance-'));
    try {
      // The scenarios a tools-only server answers; the others need the
      // suite's "everything" fixture (resources, prompts, sampling, ...).
      for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
        const run = await new Promise((resolve) => {
          execFile(process.execPath, [
            'node_modules/@modelcontextprotocol/conformance/dist/index.js', 'server',
            '--url', url, '--scenario', scenario, '-o', join(out, scenario),
          ], { timeout: 120000 }, (error, stdout, stderr) => resolve({ error, stdout, stderr }));
        });
        const checks = readdirSync(join(out, scenario), { recursive: true })
          .filter((f) => f.endsWith('checks.json'))
          .flatMap((f) => JSON.parse(readFileSync(join(out, scenario, f), 'utf8')));
        const failed = checks.filter((c) => c.status === 'FAILURE');
        assert.ok(checks.length > 0, `${scenario}: no checks ran\n${run.stdout}\n${run.stderr}`);
        assert.deepEqual(failed, [], `${scenario}:\n${run.stdout}\n${run.stderr}`);
        assert.equal(run.error, null, `${scenario}:\n${run.stdout}\n${run.stderr}`);
      }
    } finally {
      proxy.close();
      rmSync(out, { recursive: true, force: true });
    }
  });
});
