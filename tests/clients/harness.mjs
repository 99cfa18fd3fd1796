// SPDX-License-Identifier: MIT
// What the real-client tests share: a fresh store and agent roots in a
// temporary directory, Claude Code log lines, the origin CLI, and an SDK
// client that launches origin-mcp as an agent does (which starts originsd).
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BaseWorld, need } from '../support/world.mjs';

export const ORIGIN = need('ORIGIN');
export const ORIGIN_MCP = need('ORIGIN_MCP');
need('ORIGINSD');

/** A store and the agents' roots of one test, under a temporary directory. */
export class World extends BaseWorld {
  constructor() {
    super('origin-clients-');
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
