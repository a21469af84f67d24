// The history view end to end: the handler (built from this tree) on the
// embedded store in a temporary directory, the page in headless Chromium.
// A todo edited three times shows four versions with their diffs, read in
// the second form (seeds in place of commitments) and each verified in the
// page once the log holds it; compare, asOf and restore
// work; axe-core finds no serious or critical violation; a record altered
// in the store and sealed again fails alone, on its logged leaf; a version
// shows Pending until the log integrates it, then Verified; a store
// rolled back to an older copy (its anchors kept) raises the alert in a
// browser that had seen the newer checkpoint. The rollback comes after the
// tests that need the log to integrate: the log signs nothing after it.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { handlerUnderTest, seriousViolations, until } from "./audit-harness.mjs";
import { TodoPage } from "./todo-page.mjs";

const h = handlerUnderTest({ prefix: "history-test-" });
const { start, stop, logSize } = h;
const call = (method, url, body, type) => h.call("alice", method, url, body, type);

test("a todo's history verifies in the page; compare, asOf and restore", async () => {
  const todo = await call("POST", "/api/todos", { category: "Grocery", title: "buy oat milk" });
  const id = encodeURIComponent(todo.id);
  for (const patch of [{ title: "buy oat milk, two litres" }, { title: "buy oat milk, three litres" }, { notes: "the blue carton" }]) {
    await call("PATCH", `/api/todos/${id}`, patch, "application/merge-patch+json");
  }
  const page = await (await h.browser.newContext()).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // The page reads the history in the second form: seeds, no commitments.
  const pages = [];
  page.on("response", (r) => {
    if (/\/api\/todos\/[^/]+\/history\?/.test(r.url())) pages.push(r.text().then((body) => ({ url: r.url(), body })));
  });
  await page.goto(`${h.base}/?user=alice`);
  await page.locator(`li[data-id="${todo.id}"]`).getByRole("link", { name: "History" }).click();
  const versions = page.getByRole("list", { name: "Versions" });
  const statuses = async () => (await versions.getByRole("listitem").locator(".status").allTextContents());
  await until("four versions checked", async () => {
    const s = await statuses();
    return s.length === 4 && !s.includes("Checking");
  });
  assert.ok(pages.length > 0, "no history page read");
  for (const { url, body } of await Promise.all(pages)) {
    assert.equal(new URL(url).searchParams.get("form"), "2", url);
    assert.equal(body.match(/"seed":"[0-9a-f]{32}"/g)?.length, 4, body);
    assert.doesNotMatch(body, /"commitments"/);
  }
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

  assert.deepEqual(await seriousViolations(page), []);

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

test("a record altered and sealed again in the store shows Failed with its reason; the others stay Verified", async () => {
  const todo = await call("POST", "/api/todos", { category: "Work", title: "sign the contract" });
  const id = encodeURIComponent(todo.id);
  for (const title of ["sign the contract today", "sign the contract by noon"]) {
    await call("PATCH", `/api/todos/${id}`, { title }, "application/merge-patch+json");
  }
  await until("three versions logged", async () => {
    const v = await call("GET", `/api/todos/${id}/history/verify`);
    return v.logged === 3 && v.pending === 0;
  });
  const { items } = await call("GET", `/api/todos/${id}/history`);
  // The newest version, so that no later version's link gives it away:
  // only the log, which holds its old hash, can.
  const v3 = items.find((r) => r.version === 3);
  const tamper = path.join(h.dir, "tamper");
  execFileSync("go", ["build", "-o", tamper, "./web/test/tamper"], { cwd: new URL("../../", import.meta.url), stdio: "inherit" });
  await stop();
  execFileSync(tamper, [path.dirname(h.store), v3.entityKey, v3.id, "title", "sign nothing"], { stdio: "inherit" });
  await start();
  const page = await (await h.browser.newContext()).newPage();
  await page.goto(`${h.base}/?user=alice#/todos/${id}`);
  const versions = page.getByRole("list", { name: "Versions" });
  const statuses = async () => versions.getByRole("listitem").locator(".status").allTextContents();
  await until("three versions checked", async () => {
    const s = await statuses();
    return s.length === 3 && !s.includes("Checking");
  });
  const item = (n) => versions.getByRole("listitem").filter({ hasText: `Version ${n} ` });
  assert.equal(await item(3).locator(".status").innerText(), "Failed");
  assert.match((await item(3).locator("ins").allTextContents()).join(" "), /nothing/, "the altered content is what the server serves");
  assert.match(await item(3).locator(".reason").innerText(), /the log holds another hash/);
  for (const n of [1, 2]) assert.equal(await item(n).locator(".status").innerText(), "Verified", `version ${n}`);
});

test("a version shows Pending, then Verified once the log integrates it", async () => {
  const todo = await call("POST", "/api/todos", { category: "Work", title: "file the taxes" });
  const id = encodeURIComponent(todo.id);
  await until("the todo logged", async () => {
    const v = await call("GET", `/api/todos/${id}/history/verify`);
    return v.logged === 1 && v.pending === 0;
  });
  // The integrator anchors each checkpoint before it signs it: a
  // directory in the place of the next anchor's file makes it fail until
  // the directory goes, so the next version stays Pending until then.
  const blocker = path.join(path.dirname(h.store), "log-anchors", `${String((await logSize()) + 1).padStart(20, "0")}.checkpoint`);
  mkdirSync(blocker);
  await call("PATCH", `/api/todos/${id}`, { title: "file the taxes by April" }, "application/merge-patch+json");
  await until("version 2 audited", async () => (await call("GET", `/api/todos/${id}/history/verify`)).pending === 1);
  const page = await (await h.browser.newContext()).newPage();
  await page.goto(`${h.base}/?user=alice#/todos/${id}`);
  const versions = page.getByRole("list", { name: "Versions" });
  const statuses = async () => versions.getByRole("listitem").locator(".status").allTextContents();
  await until("two versions checked", async () => {
    const s = await statuses();
    return s.length === 2 && !s.includes("Checking");
  });
  assert.deepEqual(await statuses(), ["Pending", "Verified"], "newest first: version 2 pending, version 1 verified");
  rmdirSync(blocker);
  await until("version 2 verified", async () => {
    await page.reload();
    await until("checked", async () => {
      const s = await statuses();
      return s.length === 2 && !s.includes("Checking");
    }, 30);
    return (await statuses()).every((s) => s === "Verified");
  });
});

test("another todo's history shows nothing of the one before: no verdict, no result, no title", async () => {
  const x = await call("POST", "/api/todos", { category: "Work", title: "the first todo" });
  await call("PATCH", `/api/todos/${encodeURIComponent(x.id)}`, { title: "the first todo, edited" }, "application/merge-patch+json");
  const y = await call("POST", "/api/todos", { category: "Work", title: "the second todo" });
  for (const [t, n] of [[x, 2], [y, 1]]) {
    await until(`${t.title} logged`, async () => {
      const v = await call("GET", `/api/todos/${encodeURIComponent(t.id)}/history/verify`);
      return v.logged === n && v.pending === 0;
    });
  }
  const page = await (await h.browser.newContext()).newPage();
  const versions = page.getByRole("list", { name: "Versions" });
  const statuses = async () => versions.getByRole("listitem").locator(".status").allTextContents();
  const heading = page.getByRole("heading", { level: 2 });
  const openX = async () => {
    await page.goto(`${h.base}/?user=alice#/todos/${encodeURIComponent(x.id)}`);
    await until("x verified", async () => (await statuses()).join() === "Verified,Verified");
  };
  await openX();
  await page.getByLabel("View as it was at").fill(new Date(Date.now() + 60_000).toISOString().slice(0, 19));
  await page.getByRole("button", { name: "View" }).click();
  await page.getByRole("region", { name: "As it was" }).waitFor();

  // The log's key cannot be read: the second todo's history cannot be checked.
  await page.route("**/api/log/key", (r) => r.abort());
  await page.evaluate((id) => { location.hash = `#/todos/${encodeURIComponent(id)}`; }, y.id);
  await page.getByRole("alert").filter({ hasText: "could not be verified" }).waitFor();
  await until("y's history shown", async () => (await heading.innerText()) === "History of the second todo");
  assert.deepEqual(await statuses(), ["Unchecked"], "no verdict without the todo's own check");
  assert.equal(await page.getByRole("region", { name: "As it was" }).count(), 0, "the first todo's result is gone");
  await page.unroute("**/api/log/key");

  await openX();
  await page.evaluate(() => { location.hash = "#/todos/Inbox%3Anope"; });
  await page.getByRole("alert").filter({ hasText: "Bad Request" }).waitFor();
  assert.equal(await heading.innerText(), "History of Inbox:nope");
  assert.deepEqual(await statuses(), [], "none of the first todo's versions");
});

test("a restored version is what the list shows, and the next edit of it meets no conflict", async () => {
  // A user of its own, so that the list holds this todo alone.
  const carol = (method, url, body) => h.call("carol", method, url, body);
  const todo = await carol("POST", "/api/todos", { category: "Work", title: "write the report" });
  const page = await (await h.browser.newContext()).newPage();
  const p = new TodoPage(page, h.base);
  await p.open("carol");
  await p.item("write the report").locator(".toggle").check();
  const { input } = await p.edit("write the report");
  await input.fill("write the report today");
  await input.press("Enter");
  const versions = page.getByRole("list", { name: "Versions" });
  await until("version 3 written", async () => (await carol("GET", `/api/todos/${encodeURIComponent(todo.id)}`)).version === 3);
  await page.locator(`li[data-id="${todo.id}"]`).getByRole("link", { name: "History" }).click();
  await versions.getByRole("listitem").filter({ hasText: "Version 3 " }).waitFor();
  page.once("dialog", (d) => void d.accept());
  await versions.getByRole("listitem").filter({ hasText: "Version 1 " }).getByRole("button", { name: "Restore this version" }).click();
  await versions.getByRole("listitem").filter({ hasText: "Version 4 " }).waitFor();

  await page.getByRole("link", { name: "Back to my todos" }).click();
  await p.expectTitles(["write the report"]);
  assert.equal(await p.item("write the report").locator(".toggle").isChecked(), false, "active, as version 1 was");
  const again = await p.edit("write the report");
  await again.input.fill("write the summary");
  await again.input.press("Enter");
  await until("the edit saved", async () => (await carol("GET", `/api/todos/${encodeURIComponent(todo.id)}`)).title === "write the summary");
  assert.equal(await page.getByRole("alertdialog").count(), 0, "no conflict with the user's own restore");
  await p.expectTitles(["write the summary"]);
});

test("a store rolled back to an older copy raises the alert, with both checkpoints", async () => {
  const todo = await call("POST", "/api/todos", { category: "Grocery", title: "kept by the log" });
  await until("the todo logged", async () => { const n = await logSize(); return n > 0 && n; });
  await stop();
  const store = h.store;
  copyFileSync(store, path.join(h.dir, "older.db"));
  await start();
  await call("PATCH", `/api/todos/${encodeURIComponent(todo.id)}`, { title: "written after the copy" }, "application/merge-patch+json");
  // The size of a checkpoint holding the edit itself: versions written
  // before the copy may be logged after it, in either store.
  const newer = await until("the edit logged", async () => {
    const res = await fetch(`${h.base}/api/todos/${encodeURIComponent(todo.id)}/history/proof?version=2`, { headers: { "X-User-Id": "alice" } });
    return res.ok && Number((await res.json()).checkpoint.split("\n")[1]);
  });
  const page = await (await h.browser.newContext()).newPage();
  await page.goto(`${h.base}/?user=alice#/todos/${encodeURIComponent(todo.id)}`);
  await until("versions checked", async () => {
    const s = await page.locator(".versions .status").allTextContents();
    return s.length === 2 && !s.includes("Checking");
  });
  assert.equal(await page.getByRole("alert").count(), 0, "no alert while the log is consistent");
  await stop();
  copyFileSync(path.join(h.dir, "older.db"), store); // the anchors stay
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
  const page = await h.browser.newPage();
  await page.goto(`${h.base}/verify.html`);
  await page.getByRole("heading", { name: "Audit export verifier" }).waitFor();
  await page.close();
});
