// What the audit views' end-to-end tests share, on the page tests' harness
// (harness.mjs: the handler binary, a free port, Debian's chromium): one
// handler for a whole file, on the embedded store in a temporary directory
// (dev mode, the admins given), that a test may stop and start again around
// an edit of its store, and small helpers to call the API and to wait with a
// deadline.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import AxeBuilder from "@axe-core/playwright";
import { freePort, handlerBinary, launchBrowser } from "./harness.mjs";

/** until polls f until it returns a truthy value, within a deadline. */
export async function until(what, f, seconds = 90) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const v = await f().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error("gave up waiting for " + what);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** seriousViolations lists axe-core's serious and critical findings on the page. */
export async function seriousViolations(page) {
  const axe = await new AxeBuilder({ page }).analyze();
  return axe.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(" ")}`);
}

/** A handler and a browser for the tests of one file, set up before them
 * and removed after them. */
export function handlerUnderTest({ prefix, adminUsers = "" }) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const h = {
    dir,
    /** The store's file, to copy or edit while the handler is stopped. */
    store: path.join(dir, "data", "store.db"),
    base: "",
    bin: "",
    browser: null,
    server: null,
    /** start runs the handler on base and waits until it answers. */
    async start() {
      h.server = spawn(h.bin, [], {
        env: { ...process.env, LISTEN_ADDR: h.base.slice(7), DATA_DIR: path.join(dir, "data"), AUTH_MODE: "dev", ADMIN_USERS: adminUsers },
        stdio: ["ignore", "ignore", "inherit"],
      });
      await until("the handler", async () => (await fetch(h.base + "/api/log/key")).ok);
    },
    /** stop stops the handler and waits for it to exit. */
    async stop() {
      const exited = new Promise((resolve) => h.server.once("exit", resolve));
      h.server.kill();
      await exited;
      h.server = null;
    },
    /** logSize is the size of the log's latest checkpoint. */
    async logSize() {
      return Number((await (await fetch(h.base + "/api/log/checkpoint")).text()).split("\n")[1]);
    },
    /** call sends a request as user and returns the answer's JSON (null when it has no body). */
    async call(user, method, url, body, type = "application/json") {
      const res = await fetch(h.base + url, { method, headers: { "X-User-Id": user, "Content-Type": type }, body: body && JSON.stringify(body) });
      assert.ok(res.ok, `${method} ${url}: ${res.status} ${await res.clone().text()}`);
      return res.status === 204 ? null : res.json();
    },
  };
  before(async () => {
    h.bin = await handlerBinary();
    h.base = `http://127.0.0.1:${await freePort()}`;
    await h.start();
    h.browser = await launchBrowser();
  });
  after(async () => {
    await h.browser?.close();
    h.server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return h;
}
