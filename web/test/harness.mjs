// The browser tests' harness: the real handler binary on a free loopback
// port with its own data directory, Debian's chromium driven by
// playwright-core, a fresh user per test, and a screenshot of any test that
// fails. Every wait has a deadline.
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository's root, where `go build ./handler` runs. */
export const root = resolve(here, '..', '..');
/** Where failing tests leave their screenshots (gitignored). */
export const outputDir = join(here, 'output');

/** The longest any single wait of the harness may take. */
const startDeadlineMs = 60_000;
const stopDeadlineMs = 5_000;

/** The browser the tests drive: Debian's chromium package. */
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

let built;

/** handlerBinary returns the handler to test: HANDLER_BIN (make test-web
 * builds it once), or one built here into a temporary folder. */
export async function handlerBinary() {
  if (process.env.HANDLER_BIN) return process.env.HANDLER_BIN;
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'webtest-bin-'));
    const bin = join(dir, 'handler');
    await run('go', ['build', '-o', bin, './handler'], { cwd: root, timeout: 300_000 });
    return bin;
  })();
  return built;
}

function run(cmd, args, opts) {
  return new Promise((ok, fail) => {
    execFile(cmd, args, opts, (err, stdout, stderr) => {
      if (err) fail(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else ok(stdout);
    });
  });
}

/** freePort asks the kernel for a port on 127.0.0.1 that nobody listens on. */
export function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/** A handler process serving on a loopback port. */
export class Handler {
  constructor(proc, url, dataDir, log) {
    this.proc = proc;
    this.url = url;
    this.dataDir = dataDir;
    this.log = log;
  }

  /** stop sends SIGTERM, then SIGKILL if it has not ended in time, and
   * removes its data directory. */
  async stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const ended = new Promise((ok) => this.proc.once('exit', ok));
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), stopDeadlineMs);
      await ended;
      clearTimeout(timer);
    }
    await rm(this.dataDir, { recursive: true, force: true });
  }

  /** api calls the API as user (X-User-Id, in dev mode) and returns the
   * response with its JSON body, if any, as .body. */
  async api(method, path, { user, body, headers = {} } = {}) {
    const h = { ...headers };
    if (user) h['X-User-Id'] = user;
    if (body !== undefined) h['Content-Type'] ??= 'application/json';
    const res = await fetch(this.url + path, {
      method, headers: h, body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let json;
    try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
    return { status: res.status, headers: res.headers, body: json, text };
  }
}

/** startHandler starts the handler standalone with a fresh DATA_DIR and
 * env (AUTH_MODE, ADMIN_USERS, PARTITION_SCHEME...) and waits for
 * /api/health to answer 200. */
export async function startHandler(env = {}) {
  const bin = await handlerBinary();
  const dataDir = await mkdtemp(join(tmpdir(), 'webtest-data-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(bin, [], {
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME,
      LISTEN_ADDR: `127.0.0.1:${port}`, DATA_DIR: dataDir, LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  const h = new Handler(proc, url, dataDir, () => log);
  const deadline = Date.now() + startDeadlineMs;
  for (;;) {
    if (proc.exitCode !== null) {
      await h.stop();
      throw new Error(`the handler exited with ${proc.exitCode}:\n${log}`);
    }
    try {
      const res = await fetch(url + '/api/health', { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return h;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await h.stop();
      throw new Error(`the handler did not report healthy within ${startDeadlineMs} ms:\n${log}`);
    }
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/** launchBrowser starts chromium headless; Playwright gives it a fresh
 * temporary user-data-dir, removed when it closes, and each test a new
 * context (cookies, storage) of its own. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: chromiumPath, headless: true, args: chromiumArgs, timeout: startDeadlineMs,
  });
}

/** uniqueUser names a fresh user, so every test starts with an empty list. */
export function uniqueUser(prefix = 'u') {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

/** Default timeouts of Playwright's waits and expectations in the tests. */
export const actionTimeoutMs = 10_000;

/**
 * trackApiCalls counts the page's API requests in flight and returns
 * idle(), which waits until none is (and none started in the last 100 ms),
 * so that a test reloads only once the server has what the page sent.
 */
export function trackApiCalls(page) {
  let inFlight = 0;
  let last = Date.now();
  const isApi = (r) => new URL(r.url()).pathname.startsWith('/api/');
  page.on('request', (r) => { if (isApi(r)) { inFlight++; last = Date.now(); } });
  const done = (r) => { if (isApi(r)) { inFlight--; last = Date.now(); } };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return async function idle(timeoutMs = actionTimeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (inFlight > 0 || Date.now() - last < 100) {
      if (Date.now() > deadline) throw new Error(`${inFlight} API requests still in flight after ${timeoutMs} ms`);
      await new Promise((ok) => setTimeout(ok, 25));
    }
  };
}

/**
 * eventually runs check until it stops throwing, and throws its last error
 * once timeoutMs has passed: the page answers asynchronously, and a slow
 * shared machine must not fail a test that would pass.
 */
export async function eventually(check, timeoutMs = actionTimeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

function safeName(name) {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100);
}

/**
 * suite starts one handler (with env, or what the function env returns)
 * and one browser for the tests of a
 * file, and stops them after the last; its test() is pageTest on them.
 */
export function suite(env = {}) {
  const s = {
    handler: null,
    browser: null,
    get url() { return s.handler.url; },
    test: (name, fn, options) => pageTest(name, () => s.browser, fn, options),
  };
  before(async () => {
    const settings = typeof env === 'function' ? await env() : env;
    const [h, b] = await Promise.allSettled([startHandler(settings), launchBrowser()]);
    s.handler = h.value ?? null;
    s.browser = b.value ?? null;
    if (h.status === 'rejected') throw h.reason;
    if (b.status === 'rejected') throw b.reason;
  });
  after(async () => {
    await s.browser?.close();
    await s.handler?.stop();
  });
  return s;
}

/**
 * pageTest declares a test that gets a fresh browser context and page
 * (viewport 1024x768 unless options say otherwise) and, when it fails,
 * leaves a screenshot in web/test/output/ and prints its path.
 */
export function pageTest(name, getBrowser, fn, options = {}) {
  test(name, { timeout: options.timeout ?? 90_000 }, async (t) => {
    const ctx = await getBrowser().newContext({ viewport: { width: 1024, height: 768 }, ...options.context });
    ctx.setDefaultTimeout(actionTimeoutMs);
    const page = await ctx.newPage();
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    const idle = trackApiCalls(page);
    try {
      await fn({ page, context: ctx, t, consoleErrors, idle });
    } catch (err) {
      await mkdir(outputDir, { recursive: true });
      const file = join(outputDir, `${safeName(name)}.png`);
      try {
        await page.screenshot({ path: file, fullPage: true, timeout: 10_000 });
        t.diagnostic(`screenshot: ${file}`);
        console.error(`# screenshot of the failing test "${name}": ${file}`);
      } catch (shotErr) {
        console.error(`# no screenshot of "${name}": ${shotErr.message}`);
      }
      if (consoleErrors.length) console.error(`# browser console errors:\n${consoleErrors.join('\n')}`);
      throw err;
    } finally {
      await ctx.close();
    }
  });
}

/**
 * expectAccessible scans the page with axe-core (WCAG 2.x A and AA rules)
 * and fails on any serious or critical violation, naming the rule and the
 * elements.
 */
export async function expectAccessible(page, view) {
  const { AxeBuilder } = await import('@axe-core/playwright');
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad.map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}: ${n.failureSummary?.replace(/\n/g, ' ')}`).join('\n')}`);
  assert.equal(report.length, 0, `axe-core on ${view}:\n${report.join('\n')}`);
  return result;
}
