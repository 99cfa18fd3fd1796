// SPDX-License-Identifier: MIT
// What the real-client tests share: a fresh store and agent roots in a
// temporary directory, Claude Code log lines, the origin CLI, and an SDK
// client that launches origin-mcp as an agent does (which starts originsd).
import { execFileSync } from 'node:child_process';
import {
  appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const ORIGIN = need('ORIGIN');
export const ORIGIN_MCP = need('ORIGIN_MCP');
need('ORIGINSD');

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run the tests through meson)`);
  return v;
}

/** A store and the agents' roots of one test, under a temporary directory. */
export class World {
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'origin-clients-'));
    this.env = {
      PATH: process.env.PATH,
      ORIGIN_HOME: join(this.dir, 'home'),
      CLAUDE_CONFIG_DIR: join(this.dir, 'claude'),
      CODEX_HOME: join(this.dir, 'codex'),
      HOME: join(this.dir, 'user'),
      ORIGIN_DEVICE: 'testbox',
      ORIGINSD: process.env.ORIGINSD,
    };
    for (const k of ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS'])
      if (process.env[k]) this.env[k] = process.env[k];
    mkdirSync(this.env.HOME, { recursive: true });
  }

  /** The path of a Claude Code session log of project /home/dev/app. */
  claudeLog(name) {
    return join(this.env.CLAUDE_CONFIG_DIR, 'projects', '-home-dev-app', `${name}.jsonl`);
  }

  /** Appends a user message line to a Claude Code log; returns the line. */
  say(file, uuid, text, session = 's1') {
    const line = JSON.stringify({
      type: 'user', uuid, sessionId: session, timestamp: '2026-01-05T10:00:00.000Z',
      cwd: '/home/dev/app', version: '2.1.12', message: { role: 'user', content: text },
    }) + '\n';
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, line);
    return line;
  }

  /** Runs the origin CLI; its stdout parsed as JSON with --json. */
  origin(...args) {
    const out = execFileSync(ORIGIN, args, { env: this.env, encoding: 'utf8' });
    return args.includes('--json') ? JSON.parse(out) : out;
  }

  /**
   * Waits until the search index holds every stored event, so that a ranked
   * search does not depend on how far the indexer got (the newest events
   * not yet indexed come first).
   */
  async indexed() {
    for (;;) {
      const s = this.origin('status', '--json');
      if (s.search_index.indexed_upto >= s.store.max_seq) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** An SDK client connected to a new origin-mcp. */
  async client(name = 'node-test', opts = {}) {
    const client = new Client({ name, version: '1.0.0' }, opts);
    const transport = new StdioClientTransport({
      command: ORIGIN_MCP, args: [], env: this.env, stderr: 'pipe',
    });
    await client.connect(transport);
    return client;
  }

  /** Stops the daemon origin-mcp started, and removes the directory. */
  async close() {
    let pid = 0;
    try {
      const out = execFileSync(ORIGIN, ['status', '--json'], {
        env: { ...this.env, ORIGIN_NO_AUTOSTART: '1' }, encoding: 'utf8', stdio: 'pipe',
      });
      pid = JSON.parse(out).daemon.pid;
    } catch { /* not running */ }
    if (pid) {
      // SIGTERM: it exits once the current transaction is done.
      process.kill(pid, 'SIGTERM');
      while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  write(path, text) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

// Whether a process runs: a zombie (exited, its reaper not yet there) does not.
function alive(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    try { process.kill(pid, 0); return existsSync('/proc/self') ? false : true; } catch { return false; }
  }
}

/** A tool's answer: its JSON text parsed, or throws with the tool error. */
export async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return JSON.parse(r.content[0].text);
}

/** A tool error's message (fails when the call succeeds). */
export async function toolError(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (!r.isError) throw new Error(`${name} succeeded: ${r.content[0].text}`);
  return r.content[0].text;
}

/** A search answer's event hits in rank order (they come grouped by session). */
export function eventHits(answer) {
  return [...answer.events, ...answer.sessions.flatMap((s) => s.events)]
    .sort((x, y) => x.rank - y.rank);
}
