// SPDX-License-Identifier: MIT
// `origin mcp install` registers origin-mcp with Claude Code, Codex and
// Cursor by their own conventions (../shared/spec/mcp.md section 9), checked
// with the agents' own CLIs (claude, codex from npm): through `claude mcp add`
// when claude is on PATH, else in the configuration files.  Other servers
// and settings are kept, a backup is written before any change, a second run
// changes nothing, and --print writes nothing.  Then an agent launches what
// was registered and uses all seven tools against its own logs.  Also
// `origin mcp` (the shim), and `origin service`.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ORIGIN, ORIGIN_MCP, World, call, eventHits } from './harness.mjs';

const bin = join(dirname(createRequire(import.meta.url).resolve('./package.json')), 'node_modules', '.bin');
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

function backups(file) {
  return readdirSync(dirname(file)).filter((n) => n.startsWith(file.split('/').pop() + '.origin-backup-'));
}

describe('origin mcp install', () => {
  const w = new World();
  after(() => w.close());
  // The agents' CLIs are not on PATH unless a test puts them there.
  const env = { ...w.env, PATH: SYSTEM_PATH };
  const origin = (args, extra = {}) =>
    spawnSync(ORIGIN, args, { env: { ...env, ...extra }, encoding: 'utf8' });
  const tool = (name, args, extra = {}) => {
    const r = spawnSync(join(bin, name), args, { env: { ...env, ...extra }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    return r.stdout;
  };
  const claudeJson = join(w.env.CLAUDE_CONFIG_DIR, '.claude.json');
  const codexToml = join(w.env.CODEX_HOME, 'config.toml');
  const cursorJson = join(w.env.HOME, '.cursor', 'mcp.json');

  test('--print shows what it would write and changes nothing', () => {
    mkdirSync(dirname(cursorJson), { recursive: true });
    writeFileSync(cursorJson, '{"mcpServers":{"other":{"command":"other-mcp"}}}\n');
    const r = origin(['mcp', 'install', 'cursor', '--print']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /would write .*mcp\.json/);
    assert.ok(r.stdout.includes(ORIGIN_MCP));
    assert.equal(readFileSync(cursorJson, 'utf8'), '{"mcpServers":{"other":{"command":"other-mcp"}}}\n');
    assert.deepEqual(backups(cursorJson), []);
  });

  test('cursor: mcpServers.origin in ~/.cursor/mcp.json, the rest kept, a backup first', () => {
    const r = origin(['mcp', 'install', 'cursor']);
    assert.equal(r.status, 0, r.stderr);
    const cfg = JSON.parse(readFileSync(cursorJson, 'utf8'));
    // The store is not ~/.origin: the agent is told which one (ORIGIN_HOME).
    assert.deepEqual(cfg.mcpServers.origin,
      { command: ORIGIN_MCP, args: [], env: { ORIGIN_HOME: w.env.ORIGIN_HOME } });
    assert.deepEqual(cfg.mcpServers.other, { command: 'other-mcp' });
    assert.equal(backups(cursorJson).length, 1);
    // Again: nothing changes, no new backup.
    const before = readFileSync(cursorJson, 'utf8');
    assert.match(origin(['mcp', 'install', 'cursor']).stdout, /already registered/);
    assert.equal(readFileSync(cursorJson, 'utf8'), before);
    assert.equal(backups(cursorJson).length, 1);
  });

  test('codex: [mcp_servers.origin] in config.toml, read back by codex itself', () => {
    mkdirSync(w.env.CODEX_HOME, { recursive: true });
    const original = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other-mcp"\n\n' +
      '[mcp_servers.origin]\ncommand = "/old/origin-mcp"\nargs = [\n  "--old",\n]\n' +
      'tool_timeout_sec = 120\n\n[profiles.fast]\nmodel = "o4-mini"\n';
    writeFileSync(codexToml, original);
    const r = origin(['mcp', 'install', 'codex']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(backups(codexToml).length, 1);
    assert.equal(readFileSync(join(dirname(codexToml), backups(codexToml)[0]), 'utf8'), original);
    const got = JSON.parse(tool('codex', ['mcp', 'get', 'origin', '--json']));
    assert.equal(got.transport.command, ORIGIN_MCP);
    assert.deepEqual(got.transport.args ?? [], []);
    assert.equal(got.transport.env.ORIGIN_HOME, w.env.ORIGIN_HOME);
    assert.equal(got.tool_timeout_sec, 120);  // the user's setting is kept
    assert.match(tool('codex', ['mcp', 'list']), /other-mcp/);
    const text = readFileSync(codexToml, 'utf8');
    assert.ok(text.includes('[profiles.fast]\nmodel = "o4-mini"'));
    assert.ok(!/^type\s*=/m.test(text));  // codex refuses a type key
    assert.match(origin(['mcp', 'install', 'codex']).stdout, /already registered/);
    assert.equal(readFileSync(codexToml, 'utf8'), text);
  });

  test('claude-code without claude on PATH: mcpServers.origin in .claude.json', () => {
    mkdirSync(dirname(claudeJson), { recursive: true });
    writeFileSync(claudeJson, JSON.stringify({ theme: 'dark', numStartups: 7, mcpServers: { other: { type: 'stdio', command: 'other-mcp', args: [] } } }));
    const r = origin(['mcp', 'install', 'claude-code']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /registered in .*\.claude\.json/);
    const cfg = JSON.parse(readFileSync(claudeJson, 'utf8'));
    assert.equal(cfg.theme, 'dark');
    // Claude Code reads it back.
    const got = tool('claude', ['mcp', 'get', 'origin']);
    assert.ok(got.includes(ORIGIN_MCP), got);
    assert.match(tool('claude', ['mcp', 'list']), /other/);
  });

  test('claude-code with claude on PATH: through `claude mcp add`, once', () => {
    const withClaude = { PATH: `${bin}:${SYSTEM_PATH}` };
    // A stale registration is replaced.
    const cfg = JSON.parse(readFileSync(claudeJson, 'utf8'));
    cfg.mcpServers.origin.command = '/old/origin-mcp';
    writeFileSync(claudeJson, JSON.stringify(cfg));
    const n = backups(claudeJson).length;
    const r = origin(['mcp', 'install', 'claude-code'], withClaude);
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /registered with .*claude mcp add --scope user origin -e ORIGIN_HOME=\S+ -- /);
    assert.equal(backups(claudeJson).length, n + 1);
    const after = JSON.parse(readFileSync(claudeJson, 'utf8'));
    assert.equal(after.mcpServers.origin.command, ORIGIN_MCP);
    assert.equal(after.mcpServers.origin.env.ORIGIN_HOME, w.env.ORIGIN_HOME);
    assert.equal(after.mcpServers.other.command, 'other-mcp');
    assert.equal(after.numStartups, 7);  // claude keeps the settings it knows
    const again = origin(['mcp', 'install', 'claude-code'], withClaude);
    assert.match(again.stdout, /already registered/);
    assert.equal(backups(claudeJson).length, n + 1);
    assert.match(origin(['mcp', 'install', 'claude-code', '--print'], withClaude).stdout, /already registered/);
  });

  test('bad input: an unreadable file is left alone, with a clear error', () => {
    writeFileSync(cursorJson, '{"mcpServers": [oops');
    const n = backups(cursorJson).length;
    const r = origin(['mcp', 'install', 'cursor']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /not valid JSON.*nothing changed/);
    assert.equal(readFileSync(cursorJson, 'utf8'), '{"mcpServers": [oops');
    assert.equal(backups(cursorJson).length, n);
    assert.equal(origin(['mcp', 'install', 'vscode']).status, 2);
    assert.equal(origin(['mcp', 'install', 'codex', '--force']).status, 2);
    assert.equal(origin(['mcp', 'reinstall']).status, 2);
  });

  test('all: the agents used on this machine', () => {
    const w2 = new World();
    try {
      mkdirSync(w2.env.CODEX_HOME, { recursive: true });
      const r = spawnSync(ORIGIN, ['mcp', 'install'], { env: { ...w2.env, PATH: SYSTEM_PATH }, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /codex: registered/);
      assert.match(r.stdout, /claude-code: not used on this machine; skipped/);
      assert.match(r.stdout, /cursor: not used on this machine; skipped/);
      assert.ok(!existsSync(join(w2.env.HOME, '.cursor')));
    } finally {
      w2.close();
    }
  });

  test('an agent launches what was registered and uses all seven tools on its own logs', async () => {
    const log = w.claudeLog('s1');
    const line = w.say(log, 'u1', 'We deploy the catalog with blue green');
    const { command, args } = JSON.parse(tool('codex', ['mcp', 'get', 'origin', '--json'])).transport;
    const client = new Client({ name: 'codex-mcp-client', version: '0.171.0' });
    await client.connect(new StdioClientTransport({ command, args: args ?? [], env: w.env, stderr: 'pipe' }));
    try {
      assert.equal((await client.listTools()).tools.length, 7);
      const hits = await call(client, 'search', { query: 'catalog' });
      assert.equal(eventHits(hits)[0].id, 'claude-code:u1');
      const tl = await call(client, 'timeline', { days: 100000 });
      assert.equal(tl.sessions.length, 1);
      assert.equal((await call(client, 'get', { id: 'claude-code:u1' })).event.text, 'We deploy the catalog with blue green');
      assert.equal((await call(client, 'sources', { id: 'claude-code:u1' })).sources[0].raw + '\n', line);
      const { entry } = await call(client, 'remember', {
        kind: 'knowledge', text: 'the catalog deploys blue-green', confidence: 0.9,
        sources: [{ quote: 'blue green' }],
      });
      assert.equal(entry.author, 'codex-mcp-client@testbox');
      const fixed = await call(client, 'correct', { id: entry.id, confidence: 1 });
      assert.equal(fixed.entry.supersedes, entry.id);
      assert.equal((await call(client, 'forget', { id: fixed.entry.id, reason: 'the user asked' })).recorded, true);
    } finally {
      await client.close();
    }
  });

  test('`origin mcp` is the shim', async () => {
    const client = new Client({ name: 'via-origin', version: '1' });
    await client.connect(new StdioClientTransport({ command: ORIGIN, args: ['mcp'], env: w.env, stderr: 'pipe' }));
    try {
      assert.equal(client.getServerVersion().name, 'origin');
      assert.equal((await client.listTools()).tools.length, 7);
    } finally {
      await client.close();
    }
  });
});

describe('origin service', () => {
  const w = new World();
  after(() => w.close());
  // systemctl as a user session answers it (every command succeeds, each
  // call logged), or as it answers where there is no user bus.
  const fake = (name, script) => {
    const dir = join(w.dir, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'systemctl'), script, { mode: 0o755 });
    return dir;
  };
  const calls = join(w.dir, 'systemctl.calls');
  const session = fake('session', `#!/bin/sh\necho "$*" >> '${calls}'\nexit 0\n`);
  const nobus = fake('nobus', '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n');
  const env = { ...w.env, XDG_CONFIG_HOME: join(w.dir, 'config') };
  const unit = join(env.XDG_CONFIG_HOME, 'systemd', 'user', 'originsd.service');
  const origin = (dir, ...args) =>
    spawnSync(ORIGIN, args, { env: { ...env, PATH: `${dir}:${SYSTEM_PATH}` }, encoding: 'utf8' });

  test('without a user bus, install writes nothing and says what to do', () => {
    const r = origin(nobus, 'service', 'install');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /loginctl enable-linger/);
    assert.ok(!existsSync(unit));
  });

  test('install writes a systemd user unit that runs originsd in the foreground, with readiness', () => {
    const printed = origin(session, 'service', 'install', '--print');
    assert.equal(printed.status, 0, printed.stderr);
    assert.ok(!existsSync(unit));
    const r = origin(session, 'service', 'install');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(unit), r.stderr);
    assert.match(readFileSync(calls, 'utf8'), /--user enable --now originsd\.service/);
    const text = readFileSync(unit, 'utf8');
    assert.equal(printed.stdout, `would write ${unit}:\n${text}`);
    assert.match(text, /^Type=notify$/m);
    const exec = text.match(/^ExecStart=(.*)$/m)[1];
    assert.ok(exec.includes('--foreground'), exec);
    assert.ok(exec.includes(`--home "${w.env.ORIGIN_HOME}"`), exec);
    // systemd's own parser finds nothing wrong with it.
    const verify = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stderr);
    assert.equal(verify.stderr.trim(), '');
    const st = origin(session, 'service', 'status');
    assert.equal(st.status, 0);
    assert.match(st.stdout, new RegExp(`service: installed in ${unit}`));
    // A second install keeps the unit as it is.
    origin(session, 'service', 'install');
    assert.equal(readFileSync(unit, 'utf8'), text);
    // Uninstall when systemctl fails: the unit goes, and the exit code says it failed.
    const failed = origin(nobus, 'service', 'uninstall');
    assert.equal(failed.status, 1);
    assert.ok(!existsSync(unit));
    origin(session, 'service', 'install');
    const un = origin(session, 'service', 'uninstall');
    assert.equal(un.status, 0, un.stderr);
    assert.ok(!existsSync(unit), un.stderr);
    assert.match(origin(session, 'service', 'status').stdout, /service: not installed/);
    assert.equal(origin(session, 'service', 'restart').status, 2);
  });

  // An installed Origin, as the Debian package lays it out: origin and
  // originsd in <prefix>/bin, the unit meson generated in
  // <prefix>/lib/systemd/user.
  test('with the unit installed beside origin, install enables it for the default store and writes nothing', () => {
    const prefix = join(w.dir, 'prefix');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(prefix, 'lib', 'systemd', 'user'), { recursive: true });
    const installed = join(prefix, 'bin', 'origin');
    copyFileSync(ORIGIN, installed);
    copyFileSync(process.env.ORIGINSD, join(prefix, 'bin', 'originsd'));
    chmodSync(installed, 0o755);
    chmodSync(join(prefix, 'bin', 'originsd'), 0o755);
    const packaged = join(prefix, 'lib', 'systemd', 'user', 'originsd.service');
    const gen = spawnSync(installed, ['__generate', 'systemd-unit', join(prefix, 'bin', 'originsd')], { encoding: 'utf8' });
    assert.equal(gen.status, 0, gen.stderr);
    writeFileSync(packaged, gen.stdout);
    const { ORIGIN_HOME, ...defaultStore } = env;  // the store is ~/.origin
    const run = (dir, extra, ...args) =>
      spawnSync(installed, args, { env: { ...defaultStore, ...extra, PATH: `${dir}:${SYSTEM_PATH}` }, encoding: 'utf8' });
    writeFileSync(calls, '');

    const printed = run(session, {}, 'service', 'install', '--print');
    assert.equal(printed.status, 0, printed.stderr);
    assert.equal(printed.stdout, `would enable ${packaged} (installed with origin; nothing is written):\n${gen.stdout}`);
    // It is the unit `origin service install` writes for ~/.origin, but for
    // the store of whoever enables it.
    const own = run(session, { ORIGIN_HOME: join(env.HOME, '.origin') }, 'service', 'install', '--print');
    assert.equal(own.status, 0, own.stderr);
    const ownText = own.stdout.slice(own.stdout.indexOf('\n') + 1);
    assert.equal(ownText.replace(`--home "${join(env.HOME, '.origin')}"`, '--home "%h/.origin"'), gen.stdout);

    const r = run(session, {}, 'service', 'install');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`service: ${packaged}, installed with origin, runs it`));
    assert.ok(!existsSync(unit), 'no unit of the user\'s own');
    assert.match(readFileSync(calls, 'utf8'), /--user enable --now originsd\.service/);
    assert.match(run(session, {}, 'service', 'status').stdout, new RegExp(`service: installed in ${packaged} \\(with origin\\)`));
    const doctor = JSON.parse(run(session, { ORIGIN_NO_AUTOSTART: '1' }, 'doctor', '--json').stdout);
    assert.deepEqual(doctor.checks.find((c) => c.check === 'service'),
      { check: 'service', status: 'ok', detail: `running (${packaged})` });
    const un = run(session, {}, 'service', 'uninstall');
    assert.equal(un.status, 0, un.stderr);
    assert.match(readFileSync(calls, 'utf8'), /--user disable --now originsd\.service/);
    assert.ok(existsSync(packaged), 'the packaged unit stays');

    // Another store: the user's own unit, which systemd prefers.
    const other = run(session, { ORIGIN_HOME: join(w.dir, 'other') }, 'service', 'install');
    assert.equal(other.status, 0, other.stderr);
    assert.ok(readFileSync(unit, 'utf8').includes(`--home "${join(w.dir, 'other')}"`));
    // With a unit of their own, it stays in charge, for ~/.origin too.
    assert.match(run(session, {}, 'service', 'install', '--print').stdout, new RegExp(`^would write ${unit}:`));
    assert.equal(run(session, {}, 'service', 'uninstall').status, 0);
    assert.ok(!existsSync(unit));
    // A unit beside origin that is not the one it ships is not taken for it.
    writeFileSync(packaged, gen.stdout.replace('Restart=on-failure', 'Restart=always'));
    assert.match(run(session, {}, 'service', 'install', '--print').stdout, new RegExp(`^would write ${unit}:`));
  });
});
