// Builds the standalone verifier page: page.ts bundled and minified, and
// page.css, inlined into page.html (the one file is opened from disk), its
// Content-Security-Policy allowing exactly that script and style by hash.
// Writes verifypage/verify.html, which the handler serves at
// /verify.html; with --check it fails instead when that file is stale.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const here = (name) => new URL(name, import.meta.url);
const out = new URL("../../../verifypage/verify.html", import.meta.url);

const bundle = await build({ entryPoints: [here("page.ts").pathname], bundle: true, minify: true, format: "iife", target: "es2022", write: false, legalComments: "none" });
const script = bundle.outputFiles[0].text.trim();
const style = readFileSync(here("page.css"), "utf8").trim();
if (/<\/(script|style)/i.test(script + style)) throw new Error("the inlined script or style would end its element early");
const hash = (s) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`;
const csp = `default-src 'none'; script-src ${hash(script)}; style-src ${hash(style)}; connect-src *; form-action 'none'; base-uri 'none'`;
const html = readFileSync(here("page.html"), "utf8").replace("{{CSP}}", csp).replace("{{STYLE}}", () => style).replace("{{SCRIPT}}", () => script);

if (process.argv.includes("--check")) {
  if (readFileSync(out, "utf8") !== html) {
    console.error("verifypage/verify.html is stale: run node web/src/verify/build-page.mjs");
    process.exit(1);
  }
} else {
  writeFileSync(out, html);
}
