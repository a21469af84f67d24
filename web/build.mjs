// Builds the web page into webapp/static/ (or the directory given with
// --out): the script and its lazily loaded chunks, the stylesheet, each
// with a content hash in its name, and index.html naming them. The output
// depends only on the sources, so that a test can rebuild it and compare.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const web = path.dirname(fileURLToPath(import.meta.url));
const outFlag = process.argv.indexOf("--out");
const out = outFlag > 0 ? path.resolve(process.argv[outFlag + 1]) : path.join(web, "..", "webapp", "static");

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });

const result = await build({
  absWorkingDir: web,
  entryPoints: { app: "src/main.ts", style: "style.css" },
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  charset: "utf8",
  outdir: out,
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  metafile: true,
  logLevel: "warning",
});

// The entry points' output names, for index.html.
const named = {};
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  if (meta.entryPoint) {
    named[meta.entryPoint] = path.basename(file);
  }
}
const script = named["src/main.ts"];
const style = named["style.css"];
if (!script || !style) {
  throw new Error("esbuild named no script or stylesheet: " + JSON.stringify(named));
}
// The chunks the script imports statically are fetched beside it, not
// after it has been parsed.
const scriptMeta = Object.entries(result.metafile.outputs).find(([file]) => path.basename(file) === script)[1];
const preloads = scriptMeta.imports
  .filter((i) => i.kind === "import-statement")
  .map((i) => `<link rel="modulepreload" href="/${path.basename(i.path)}">`)
  .join("\n");
// The icon is copied under a name with its content's hash, as esbuild
// names the rest.
const iconBody = await readFile(path.join(web, "icon.svg"));
const iconHash = createHash("sha256").update(iconBody).digest("hex").slice(0, 8).toUpperCase();
const icon = `icon-${iconHash}.svg`;
await writeFile(path.join(out, icon), iconBody);
const template = await readFile(path.join(web, "index.html"), "utf8");
const html = template
  .replace("{{script}}", "/" + script)
  .replace("{{style}}", "/" + style)
  .replace("{{preloads}}", preloads)
  .replace("{{icon}}", "/" + icon);
await writeFile(path.join(out, "index.html"), html);
