// The history view end to end: the handler (built from this tree) on the
// embedded store in a temporary directory, the page in headless Chromium.
// A todo edited three times shows four versions with their diffs, each
// verified in the page once the log holds it; compare, asOf and restore
// work; axe-core finds no serious or critical violation; a store rolled
// back to an older copy (its anchors kept) raises the alert in a browser
// that had seen the newer checkpoint.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), "history-test-"));
let server;
let browser;
let base;

const freePort = () => new Promise((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

/** until polls f until it returns a truthy value, within a deadline. */
async function until(what, f, seconds = 90) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const v = await f().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error("gave up waiting for " + what);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** start runs the handler on base and waits until it answers. */
async function start() {
  server = spawn(path.join(dir, "handler"), [], {
    env: { ...process.env, LISTEN_ADDR: base.slice(7), DATA_DIR: path.join(dir, "data"), AUTH_MODE: "dev" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await until("the handler", async () => (await fetch(base + "/api/log/key")).ok);
}

/** stop stops the handler and waits for it to exit. */
async function stop() {
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill();
  await exited;
  server = null;
}

/** logSize is the size of the log's latest checkpoint. */
const logSize = async () => Number((await (await fetch(base + "/api/log/checkpoint")).text()).split("\n")[1]);

before(async () => {
  execFileSync("go", ["build", "-o", path.join(dir, "handler"), "./handler"], { cwd: root, stdio: "inherit" });
  base = `http://127.0.0.1:${await freePort()}`;
  await start();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method, url, body, type = "application/json") {
  const res = await fetch(base + url, { method, headers: { "X-User-Id": "alice", "Content-Type": type }, body: body && JSON.stringify(body) });
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${await res.clone().text()}`);
  return res.json();
}

test("a todo's history verifies in the page; compare, asOf and restore", async () => {
  const todo = await call("POST", "/api/todos", { category: "Grocery", title: "buy oat milk" });
  const id = encodeURIComponent(todo.id);
  for (const patch of [{ title: "buy oat milk, two litres" }, { title: "buy oat milk, three litres" }, { notes: "the blue carton" }]) {
    await call("PATCH", `/api/todos/${id}`, patch, "application/merge-patch+json");
  }
  const page = await (await browser.newContext()).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${base}/?user=alice`);
  await page.locator(`li[data-id="${todo.id}"]`).getByRole("link", { name: "History" }).click();
  const versions = page.getByRole("list", { name: "Versions" });
  const statuses = async () => (await versions.getByRole("listitem").locator(".status").allTextContents());
  await until("four versions checked", async () => {
    const s = await statuses();
    return s.length === 4 && !s.includes("Checking");
  });
  assert.ok((await statuses()).every((s) => s === "Verified" || s === "Pending"), (await statuses()).join());
  // Once the log has integrated every version, each is Verified.
  await until("every version verified", async () => {
    await page.reload();
    await versions.getByRole("listitem").first().waitFor();
    await until("checked", async () => !(await statuses()).includes("Checking"), 30);
    return (await statuses()).every((s) => s === "Verified");
  });
  for (const n of [1, 2, 3, 4]) await versions.getByRole("listitem").filter({ hasText: `Version ${n} ` }).waitFor();
  const v3 = versions.getByRole("listitem").filter({ hasText: "Version 3 " });
  assert.deepEqual(await v3.locator("del").allTextContents(), ["removed: two"]);
  assert.match((await v3.locator("ins").allTextContents()).join(" "), /three/);

  await versions.getByRole("listitem").filter({ hasText: "Version 4 " }).getByRole("button", { name: "Compare" }).click();
  const comparison = page.getByRole("region", { name: "Comparison" });
  assert.match(await comparison.innerText(), /Version 3 compared with version 4[\s\S]*notes[\s\S]*the blue carton/);

  await page.getByLabel("View as it was at").fill(new Date(Date.now() + 60_000).toISOString().slice(0, 19));
  await page.getByRole("button", { name: "View" }).click();
  assert.match(await page.getByRole("region", { name: "As it was" }).innerText(), /buy oat milk, three litres/);

  const axe = await new AxeBuilder({ page }).analyze();
  const serious = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(" ")}`), []);

  let asked = "";
  page.once("dialog", (d) => { asked = d.message(); void d.accept(); });
  await versions.getByRole("listitem").filter({ hasText: "Version 1 " }).getByRole("button", { name: "Restore this version" }).click();
  await versions.getByRole("listitem").filter({ hasText: "Version 5 " }).waitFor();
  assert.match(asked, /adds a new version[\s\S]*erases nothing/);
  const now = await call("GET", `/api/todos/${id}`);
  assert.equal(now.title, "buy oat milk");
  assert.equal(now.version, 5);
  assert.deepEqual(errors, []);
});

test("a store rolled back to an older copy raises the alert, with both checkpoints", async () => {
  const todo = await call("POST", "/api/todos", { category: "Grocery", title: "kept by the log" });
  const logged = await until("the todo logged", async () => { const n = await logSize(); return n > 0 && n; });
  await stop();
  const store = path.join(dir, "data", "store.db");
  copyFileSync(store, path.join(dir, "older.db"));
  await start();
  await call("PATCH", `/api/todos/${encodeURIComponent(todo.id)}`, { title: "written after the copy" }, "application/merge-patch+json");
  const newer = await until("the edit logged", async () => { const n = await logSize(); return n > logged && n; });
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${base}/?user=alice#/todos/${encodeURIComponent(todo.id)}`);
  await until("versions checked", async () => {
    const s = await page.locator(".versions .status").allTextContents();
    return s.length === 2 && !s.includes("Checking");
  });
  assert.equal(await page.getByRole("alert").count(), 0, "no alert while the log is consistent");
  await stop();
  copyFileSync(path.join(dir, "older.db"), store); // the anchors stay
  await start();
  assert.ok((await logSize()) < newer, "the rolled-back store serves an older checkpoint");
  await page.reload();
  const alert = page.getByRole("alert").filter({ hasText: "not consistent" });
  await alert.waitFor({ timeout: 60_000 });
  assert.match(await alert.innerText(), /rolled back/);
  const sizeOf = async (label) => Number((await alert.getByLabel(label).inputValue()).split("\n")[1]);
  const seen = await sizeOf("Checkpoint seen before");
  assert.ok(seen >= newer, `the alert shows the checkpoint seen (size ${seen}, at least ${newer})`);
  assert.ok((await sizeOf("Checkpoint offered now")) < seen, "and the older one offered now");
  await page.reload();
  await alert.waitFor();
  await alert.getByRole("button", { name: "Dismiss" }).click();
  assert.equal(await page.getByRole("alert").filter({ hasText: "not consistent" }).count(), 0);
});

test("the handler serves the standalone verifier at /verify.html", async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/verify.html`);
  await page.getByRole("heading", { name: "Audit export verifier" }).waitFor();
  await page.close();
});
