// SPDX-License-Identifier: MIT
// The browser test's world: a store in a temporary ORIGIN_HOME fed by the
// agents' fixture logs (tests/fixtures/claude-code and codex) and by one
// Claude Code session of hostile messages written here (HTML, <script>,
// javascript: links, a huge line, deep Markdown, a tool call and its result,
// and a line holding a secret that the walk forgets); the origin CLI with
// --json; and `origin ui --no-open --port 0` with the sign-in link it prints.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseWorld, need } from '../support/world.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'fixtures');

// The text that the walk forgets: it must appear on no page but the
// forget's own (its tombstone's page).
export const SECRET = 'HIDDEN-ZEBRA-4412 the launch code';

const HOSTILE_SESSION = '7c0de000-0000-4000-8000-00000000b0b0';
const uuid = (n) => `7c0de000-0000-4000-8000-${String(n).padStart(12, '0')}`;

// Markdown nested deeper than any renderer should follow: 300 quote levels,
// 60 list levels, and a fence that tries to close the page's <pre>.
function deepMarkdown() {
  let s = '# Deep *Markdown* <b>bold?</b>\n\n';
  s += `${'>'.repeat(300)} the bottom of the quotes\n\n`;
  for (let i = 0; i < 60; ++i) s += `${'  '.repeat(i)}- level ${i}\n`;
  s += '\n| a | b |\n|---|---|\n| <i>x</i> | [js](javascript:alert(3)) |\n\n';
  s += '```html\n</code></pre><script>alert(4)</script>\n```\n\n';
  s += 'See [the docs](https://example.com/docs?a=1&b=<2>) and [bad](javascript:alert(5)).\n';
  return s;
}

export const HOSTILE = {
  prompt: `<script>alert('pwn')</script><img src=x onerror=alert(1)> deploy the blue-green `
    + 'release, see [click me](javascript:alert(2)) and <a href="javascript:alert(6)">this</a>',
  huge: `${'A'.repeat(30000)}<script>alert(7)</script>${'B'.repeat(30000)}`,
  reply: deepMarkdown(),
};

/** A store and the agents' roots, under a temporary directory. */
export class World extends BaseWorld {
  /** Without `hostile`, only the agents' fixtures (docs/ui-overview.png). */
  constructor({ hostile = true } = {}) {
    super('origin-browser-');
    this.env.TZ = 'UTC';
    const logsOnly = (src) => !src.endsWith('.expected');
    cpSync(join(fixtures, 'claude-code'), this.env.CLAUDE_CONFIG_DIR, { recursive: true, filter: logsOnly });
    cpSync(join(fixtures, 'codex'), this.env.CODEX_HOME, { recursive: true, filter: logsOnly });
    if (hostile) this.hostileSession();
    this.ui = null;
  }

  // One Claude Code session of the last two days (so the overview's chart
  // has it): a prompt of HTML and script, a tool call with a huge result, a
  // reply of deep Markdown, and the secret.
  hostileSession() {
    const file = join(this.env.CLAUDE_CONFIG_DIR, 'projects', '-home-dev-hostile',
      `${HOSTILE_SESSION}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    const start = Date.now() - 2 * 86400000;
    let n = 0;
    const line = (type, message) => {
      n += 1;
      appendFileSync(file, JSON.stringify({
        type, uuid: uuid(n), sessionId: HOSTILE_SESSION,
        timestamp: new Date(start + n * 60000).toISOString(), cwd: '/home/dev/hostile',
        gitBranch: 'main', version: '2.1.12', message,
      }) + '\n');
    };
    line('user', { role: 'user', content: HOSTILE.prompt });
    line('assistant', { role: 'assistant', model: 'claude-opus-4', content: [
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat big.txt <b>' } }] });
    line('user', { role: 'user', content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: HOSTILE.huge }] });
    line('assistant', { role: 'assistant', model: 'claude-opus-4', content: [
      { type: 'text', text: HOSTILE.reply }] });
    line('user', { role: 'user', content: `remember this: ${SECRET}` });
    line('assistant', { role: 'assistant', model: 'claude-opus-4', content: [
      { type: 'text', text: 'Noted. The **deploy** uses `blue-green`.' }] });
    this.hostileFile = file;
  }

  /** The CLI's error under --json (fails when the command succeeds). */
  originError(...args) {
    try {
      execFileSync(need('ORIGIN'), args, { env: this.env, encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      return JSON.parse(e.stdout || e.stderr);
    }
    throw new Error(`origin ${args.join(' ')} succeeded`);
  }

  /**
   * Starts `origin ui --no-open --port 0` (a free port: the daemon picks it
   * and the link names it) and resolves with the sign-in link it prints.
   */
  startUi() {
    return new Promise((resolve, reject) => {
      const ui = spawn(need('ORIGIN'), ['ui', '--no-open', '--port', '0'],
        { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
      this.ui = ui;
      let out = '';
      let err = '';
      ui.stdout.setEncoding('utf8');
      ui.stderr.setEncoding('utf8');
      ui.stderr.on('data', (d) => { err += d; });
      ui.stdout.on('data', (d) => {
        out += d;
        const m = /Sign in[^:]*: (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      ui.on('exit', (code) => reject(new Error(`origin ui exited (${code}): ${out}${err}`)));
    });
  }

  /** Stops origin ui and the daemon, and removes the directory. */
  async close() {
    if (this.ui && this.ui.exitCode === null) {
      const exited = new Promise((r) => this.ui.once('exit', r));
      this.ui.kill('SIGTERM');
      await exited;
    }
    await super.close();
  }
}
