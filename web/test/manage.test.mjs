// The auditor's and the operator's views end to end: the handler (built
// from this tree, "root" its admin) and the page in headless Chromium.
// Each view renders with data made first (a dead letter by a document put
// in the store behind the handler's back, the rest through the API); a hold is placed
// and released, an erasure and "Forget my data" run until done, the
// partitions' chart puts the hot partition first, exports download, and
// axe-core finds no serious or critical violation on any view (the admin's
// in the dark colour scheme, the others in the light one).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { handlerUnderTest, seriousViolations, until } from "./audit-harness.mjs";

const h = handlerUnderTest({ prefix: "manage-test-", adminUsers: "root" });

async function open(user, hash, colorScheme = "light") {
  const page = await (await h.browser.newContext({ acceptDownloads: true, colorScheme })).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${h.base}/?user=${user}${hash}`);
  return { page, errors };
}

/** rows waits for the table's body rows and returns their text. */
async function rows(page, n) {
  const body = page.locator("table tbody tr");
  await until(`${n} rows`, async () => (await body.count()) >= n);
  return body.allInnerTexts();
}

test("my activity: filters, More, exports; no admin links for a user", async () => {
  const todo = await h.call("carol", "POST", "/api/todos", { category: "Work", title: "write the report" });
  for (let i = 0; i < 3; i++) await h.call("carol", "PATCH", `/api/todos/${encodeURIComponent(todo.id)}`, { title: `write the report, draft ${i}` }, "application/merge-patch+json");
  for (let i = 0; i < 50; i++) await h.call("carol", "POST", "/api/todos", { category: "Home", title: `chore ${i}` });
  const { page, errors } = await open("carol", "");
  const session = page.getByRole("navigation", { name: "Session" });
  await session.getByRole("link", { name: "My activity" }).click();
  assert.equal(await session.getByRole("link", { name: /admin/ }).count(), 0, "a user gets no admin links");
  await page.getByRole("heading", { name: "My activity" }).waitFor();
  assert.equal((await rows(page, 50)).length, 50);
  await page.getByRole("button", { name: "More" }).click();
  assert.equal((await rows(page, 54)).length, 54);
  await page.getByLabel("Operation").selectOption("update");
  await page.getByRole("button", { name: "Apply" }).click();
  await until("three updates", async () => (await page.locator("table tbody tr").allInnerTexts()).length === 3);
  assert.ok((await rows(page, 3)).every((r) => /update/.test(r) && /draft/.test(r)));
  await page.getByLabel("Operation").selectOption("");
  await page.getByLabel("Category").fill("Work");
  await page.getByRole("button", { name: "Apply" }).click();
  await until("the Work todo's four versions", async () => (await page.locator("table tbody tr").count()) === 4);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export NDJSON" }).click()]);
  const lines = readFileSync(await download.path(), "utf8").trim().split("\n");
  assert.equal(lines.length, 5, "four records of the filter and the manifest");
  assert.match(lines[4], /"manifest"/);
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  assert.equal(csv.suggestedFilename(), "my-activity.csv");
  assert.match(readFileSync(await csv.path(), "utf8"), /#manifest/);
  assert.deepEqual(await seriousViolations(page), []);
  await page.locator("table tbody tr").first().getByRole("link").click();
  await page.getByRole("list", { name: "Versions" }).waitFor();
  const [history] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export NDJSON" }).click()]);
  assert.equal(readFileSync(await history.path(), "utf8").trim().split("\n").length, 5, "the todo's four versions and the manifest");
  await page.goto(`${h.base}/?user=carol#/manage/holds`);
  await page.getByText("These views are for admins.").waitFor();
  assert.deepEqual(errors, []);
});

test("the admin's views render with data: audit, holds, erasures, partitions, dead letters, log", async () => {
  // First, as a restart clears the partitions' live load: a document the
  // audit cannot use (a title that is not a string), put in the todos
  // container behind the handler's back, becomes a dead letter.
  const putdoc = path.join(h.dir, "putdoc");
  execFileSync("go", ["build", "-o", putdoc, "./web/test/putdoc"], { cwd: new URL("../../", import.meta.url), stdio: "inherit" });
  await h.stop();
  execFileSync(putdoc, [path.dirname(h.store), "todos", '["mallory","Home"]',
    '{"id":"Home:not-a-todo","type":"todo","userId":"mallory","category":"Home","title":42,"isCompleted":false,"version":1}'], { stdio: "inherit" });
  await h.start();
  await until("a dead letter", async () => (await h.call("root", "GET", "/api/manage/deadletters")).items.length > 0);
  for (let i = 0; i < 10; i++) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => h.call("dave", "POST", "/api/todos", { category: "Hot", title: `busy ${i}.${j}` })));
  }
  await h.call("erin", "POST", "/api/todos", { category: "Cold", title: "quiet" });
  // In the dark scheme, so that axe-core checks its contrast too.
  const { page, errors } = await open("root", "", "dark");
  await page.getByRole("navigation", { name: "Session" }).getByRole("link", { name: "Manage (admin)" }).click();
  const admin = page.getByRole("navigation", { name: "Administration" });

  await page.getByRole("heading", { name: "Audit" }).waitFor();
  await page.getByLabel("Actor").fill("erin");
  await page.getByRole("button", { name: "Apply" }).click();
  await until("erin's one record", async () => {
    const r = await page.locator("table tbody tr").allInnerTexts();
    return r.length === 1 && /quiet/.test(r[0]);
  });
  const [audit] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export NDJSON" }).click()]);
  assert.equal(readFileSync(await audit.path(), "utf8").trim().split("\n").length, 2, "erin's record and the manifest");
  assert.deepEqual(await seriousViolations(page), [], "audit");

  await admin.getByRole("link", { name: "Legal holds" }).click();
  await page.getByText("No legal hold is in force.").waitFor();
  await page.getByLabel("User or todo id").fill("erin");
  await page.getByLabel("Reason").fill("litigation 2026-17");
  await page.getByRole("button", { name: "Place hold" }).click();
  const holds = page.getByRole("list", { name: "Holds" });
  await holds.getByText("litigation 2026-17").waitFor();
  assert.equal((await h.call("root", "GET", "/api/manage/holds")).items.length, 1);
  assert.deepEqual(await seriousViolations(page), [], "holds");
  page.once("dialog", (d) => void d.accept("settled"));
  await holds.getByRole("button", { name: "Release the hold on erin" }).click();
  await page.getByText("No legal hold is in force.").waitFor();
  assert.equal((await h.call("root", "GET", "/api/manage/holds")).items.length, 0);

  await admin.getByRole("link", { name: "Erasures" }).click();
  await page.getByLabel("User id").fill("erin");
  await page.getByLabel("Reason").fill("GDPR Art. 17 request 2026-42");
  let asked = "";
  page.once("dialog", (d) => { asked = d.message(); void d.accept(); });
  await page.getByRole("button", { name: "Erase this user's data" }).click();
  const status = page.getByRole("status", { name: "Erasure of erin" });
  await status.getByText("Erasure of erin: done").waitFor({ timeout: 120_000 });
  assert.match(asked, /user erin[\s\S]*titles, notes[\s\S]*cannot be undone/);
  assert.deepEqual(await seriousViolations(page), [], "erasures");

  await admin.getByRole("link", { name: "Partitions" }).click();
  await page.getByLabel("Container").fill("todos");
  await page.getByRole("button", { name: "Refresh" }).click();
  const bars = page.getByRole("list", { name: "Partitions by RU, heaviest first" });
  await until("the todos container only", async () => (await bars.getByRole("listitem").allInnerTexts()).every((t) => t.startsWith("todos /")));
  await bars.getByRole("listitem").first().waitFor();
  const first = await bars.getByRole("listitem").first().innerText();
  assert.match(first, /dave \/ Hot/, `the hot partition first: ${first}`);
  assert.match(first, /hot/);
  assert.match(first, /RU[\s\S]*requests/);
  assert.deepEqual(await seriousViolations(page), [], "partitions");

  await admin.getByRole("link", { name: "Dead letters" }).click();
  await page.getByRole("heading", { name: "Dead letters" }).waitFor();
  assert.match((await rows(page, 1))[0], /todos/, "the dead letter is listed with its source");
  assert.deepEqual(await seriousViolations(page), [], "dead letters");

  await until("the log holds every version", async () => (await h.logSize()) >= 100);
  await admin.getByRole("link", { name: "Log and health" }).click();
  const state = page.locator("dl[aria-label='Log state']");
  await state.getByText("Tree size").waitFor();
  assert.match(await state.innerText(), /Health\s+ok[\s\S]*Tree size\s+\d+[\s\S]*Newest entry\s+.+ago/);
  await page.getByRole("button", { name: "Walk the whole log" }).click();
  const walk = page.locator("dl[aria-label='Log walk']");
  await walk.waitFor();
  assert.match(await walk.innerText(), /the log and the store agree[\s\S]*Not logged yet \(integrator lag\)\s+\d+ versions[\s\S]*extends its anchored checkpoint/);
  assert.deepEqual(await seriousViolations(page), [], "log");
  assert.deepEqual(errors, []);
});

test("forget my data: a clear warning, then the erasure until done", async () => {
  const todo = await h.call("frank", "POST", "/api/todos", { category: "Home", title: "my secret plan" });
  const { page, errors } = await open("frank", "#/forget");
  await page.getByRole("note").getByText("this cannot be undone").waitFor();
  assert.deepEqual(await seriousViolations(page), []);
  let asked = "";
  page.once("dialog", (d) => { asked = d.message(); void d.accept(); });
  await page.getByRole("button", { name: "Forget my data" }).click();
  await page.getByRole("status", { name: "Erasure of frank" }).getByText("Erasure of frank: done").waitFor({ timeout: 120_000 });
  assert.match(asked, /frank[\s\S]*cannot be undone/);
  const now = await h.call("frank", "GET", `/api/todos/${encodeURIComponent(todo.id)}`);
  assert.notEqual(now.title, "my secret plan");
  // The history shows the erased fields as erased, with the erasure's date.
  await page.goto(page.url().replace(/#.*$/, `#/todos/${encodeURIComponent(todo.id)}`));
  const erased = page.locator("dd.erased").first();
  await erased.waitFor({ timeout: 60_000 });
  assert.match(await erased.innerText(), /^erased on \S/);
  assert.deepEqual(errors, []);
});
