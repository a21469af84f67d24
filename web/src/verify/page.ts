// The standalone verifier page: an auditor gives an export, the log's key
// and, if they wish, a saved checkpoint and the log's address; the page
// checks everything in the browser. With no address it uses no network:
// the export's own checkpoint is what its records are checked against.

import { describe, openCheckpoint, parseKey } from "./note.ts";
import { verifyExport } from "./export.ts";
import { parseStrict } from "./json.ts";
import { consistencyOf, verifyConsistency, type ConsistencyProof } from "./proof.ts";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/** fetchBytes reads one of the log's anonymous routes, within a deadline. */
async function fetchBytes(url: string): Promise<Uint8Array> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 30_000);
  try {
    const res = await fetch(url, { signal: ctl.signal, credentials: "omit" });
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  } finally {
    clearTimeout(timer);
  }
}

const text = async (url: string): Promise<string> => new TextDecoder().decode(await fetchBytes(url));

function say(lines: [string, boolean][], verdict: "verified" | "refused"): void {
  const out = $("result");
  out.dataset["verdict"] = verdict;
  out.replaceChildren(...lines.map(([line, ok]) => {
    const li = document.createElement("li");
    li.textContent = `${ok ? "✔ " : "✘ "}${line}`;
    return li;
  }));
  $("verdict").textContent = verdict === "verified" ? "Verified" : "Refused";
}

async function run(): Promise<void> {
  const lines: [string, boolean][] = [];
  try {
    const file = $<HTMLInputElement>("export").files?.[0];
    if (!file) throw new Error("choose an export file");
    const key = await parseKey($<HTMLTextAreaElement>("key").value);
    lines.push([`log key ${key.name}, fingerprint SHA-256 ${key.fingerprint}`, true]);
    const base = $<HTMLInputElement>("log").value.trim().replace(/\/+$/, "");
    const tiles = base ? (p: string) => fetchBytes(`${base}/${p}`) : undefined;
    const report = await verifyExport(await file.text(), key, tiles);
    lines.push([report.summary, true]);
    if (!base) lines.push(["no network used: the export holds every leaf of its checkpoint's tree", true]);
    const prove = async (from: number, to: number): Promise<ConsistencyProof | null> =>
      base ? consistencyOf(parseStrict(await text(`${base}/consistency?from=${from}&to=${to}`))) : null;
    const saved = $<HTMLInputElement>("checkpoint").files?.[0];
    let newest = report.checkpoint;
    if (saved) {
      const note = await saved.text();
      const c = await openCheckpoint(note, key);
      const [a, b] = c.size <= newest.size ? [note, newest.note] : [newest.note, note];
      const [from, to] = c.size <= newest.size ? [c.size, newest.size] : [newest.size, c.size];
      await verifyConsistency(a, b, from === to ? null : await prove(from, to), key);
      lines.push([`the saved checkpoint (${describe(c)}) and the export's are of one log`, true]);
      if (c.size > newest.size) newest = c;
    }
    if (base) {
      const latest = await openCheckpoint(await text(`${base}/checkpoint`), key);
      await verifyConsistency(newest.note, latest.note, latest.size === newest.size ? null : await prove(newest.size, latest.size), key);
      lines.push([`the log's latest checkpoint (${describe(latest)}) extends it`, true]);
    }
    say(lines, "verified");
  } catch (err) {
    lines.push([(err as Error).message, false]);
    say(lines, "refused");
  }
}

$("form").addEventListener("submit", (e) => {
  e.preventDefault();
  $("verdict").textContent = "Checking…";
  void run();
});
