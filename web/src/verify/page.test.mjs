// The standalone verifier page (verifypage/verify.html) in headless
// Chromium, opened from disk as an auditor keeps it: a good export
// verifies with no network at all, an edited one is refused.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";

const root = new URL("../../../", import.meta.url);
const vectors = JSON.parse(readFileSync(new URL("internal/verifyvectors/testdata/vectors.json", root), "utf8"));
const pageURL = new URL("verifypage/verify.html", root).href;

let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});
after(() => browser?.close());

/** check opens the page, gives it an export and the key, and returns the
 * verdict, the lines it shows and every request that left the file. */
async function check(name, exportText, key) {
  const page = await browser.newPage();
  const requests = [];
  const errors = [];
  page.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(pageURL);
  await page.getByLabel("Export file (NDJSON or CSV)").setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(exportText) });
  await page.getByLabel(/Log verifier key/).fill(key);
  await page.getByRole("button", { name: "Verify" }).click();
  const status = page.getByRole("status");
  await status.filter({ hasText: /Verified|Refused/ }).waitFor({ timeout: 60_000 });
  const verdict = await status.textContent();
  const lines = await page.locator("#result li").allTextContents();
  await page.close();
  assert.deepEqual(errors, [], "the page runs under its policy without errors");
  return { verdict, lines, requests };
}

const keyOf = (c) => vectors.keys[c.key];
const whole = (kind) => vectors.cases.find((c) => c.kind === "export" && c.coversTree && c.verdict === "verified" && c.name.startsWith(kind));

for (const kind of ["NDJSON", "CSV"]) {
  test(`a good ${kind} export verifies offline`, async () => {
    const c = whole(kind);
    const r = await check(`export.${kind.toLowerCase()}`, c.export, keyOf(c));
    assert.equal(r.verdict, "Verified", r.lines.join("\n"));
    assert.deepEqual(r.requests, [], "no network");
    assert.ok(r.lines.some((l) => l.includes("no network used")));
  });

  test(`an edited ${kind} export is refused`, async () => {
    const c = whole(kind);
    const edited = c.export.replace("buy oat milk, 2 litres", "buy oat milk, 7 litres");
    assert.notEqual(edited, c.export);
    const r = await check(`export.${kind.toLowerCase()}`, edited, keyOf(c));
    assert.equal(r.verdict, "Refused");
    assert.match(r.lines.at(-1), /sha256|does not match/);
  });
}

test("an export checked with another key is refused", async () => {
  const c = whole("NDJSON");
  const r = await check("export.ndjson", c.export, vectors.keys.other);
  assert.equal(r.verdict, "Refused");
  assert.match(r.lines.at(-1), /not signed by the key/);
});
