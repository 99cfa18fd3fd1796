// SPDX-License-Identifier: MIT
// What the Node.js tests (tests/clients, tests/browser) share: a fresh store
// and agent roots in a temporary directory, the origin CLI run against it,
// and stopping the daemon it started.  Depends on nothing from npm.
import { execFileSync } from 'node:child_process';
import {
  existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** An environment variable meson sets, or throws naming it. */
export function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run the tests through meson)`);
  return v;
}

/** A store and the agents' roots of one test, under a temporary directory. */
export class BaseWorld {
  /** `prefix` names the temporary directory (origin-clients-, origin-browser-). */
  constructor(prefix) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.env = {
      PATH: process.env.PATH,
      ORIGIN_HOME: join(this.dir, 'home'),
      CLAUDE_CONFIG_DIR: join(this.dir, 'claude'),
      CODEX_HOME: join(this.dir, 'codex'),
      HOME: join(this.dir, 'user'),
      ORIGIN_DEVICE: 'testbox',
      ORIGINSD: need('ORIGINSD'),
    };
    for (const k of ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS'])
      if (process.env[k]) this.env[k] = process.env[k];
    mkdirSync(this.env.HOME, { recursive: true });
  }

  /** Runs the origin CLI; its stdout parsed as JSON with --json. */
  origin(...args) {
    const out = execFileSync(need('ORIGIN'), args, { env: this.env, encoding: 'utf8' });
    return args.includes('--json') ? JSON.parse(out) : out;
  }

  /** Stops the daemon the test started, and removes the directory. */
  async close() {
    let pid = 0;
    try {
      const out = execFileSync(need('ORIGIN'), ['status', '--json'], {
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
