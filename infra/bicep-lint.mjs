#!/usr/bin/env node
// Offline syntax check for Bicep: parses every .bicep and .bicepparam file
// under the given files or directories (default infra/bicep) with the Bicep
// tree-sitter grammar (npm tree-sitter-bicep, its .wasm loaded by
// web-tree-sitter, both pinned in package-lock.json) and fails on any ERROR or
// MISSING node, printing file:line:col.
//
// This is a syntax check only: it does not resolve types, API versions,
// parameters or module paths as `bicep build` / `az deployment ... what-if`
// do. No Bicep CLI is needed.
//
// .bicepparam: tree-sitter-bicep 1.1.0 has no rule for the untyped
// `param name = value` assignments of parameter files (it only knows
// `param name type = default`), so each such line is rewritten before
// parsing to `var   name = value`, keeping every line and column unchanged;
// `using` statements and the value expressions are parsed as they are.
//
// Exit status: 0 clean, 1 syntax errors, 2 usage or set-up error.

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const require = createRequire(import.meta.url);

function collect(target, out) {
  let st;
  try {
    st = statSync(target);
  } catch (err) {
    throw new Error(`${target}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`);
  }
  if (st.isDirectory()) {
    for (const name of readdirSync(target).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      collect(join(target, name), out);
    }
  } else if (/\.bicep(param)?$/.test(target)) {
    out.push(target);
  } else if (st.isFile()) {
    throw new Error(`${target}: not a .bicep or .bicepparam file`);
  }
}

// Same length, same line breaks: positions stay exact.
export function rewriteBicepparam(source) {
  return source.replace(/^([ \t]*)param([ \t]+)(?=[A-Za-z_][A-Za-z0-9_]*\s*=)/gm,
    (_m, indent, space) => `${indent}var  ${space}`);
}

function describe(node, lines) {
  const { row, column } = node.startPosition;
  const text = (lines[row] ?? '').slice(column).trim();
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

// source is the text as written (for .bicepparam, before the rewrite, which
// keeps every offset) so that messages quote the user's own text.
export function syntaxErrors(tree, source) {
  const lines = source.split('\n');
  const found = [];
  const walk = (node) => {
    if (node.isMissing) {
      found.push({ pos: node.startPosition, msg: `missing ${node.type}` });
      return;
    }
    if (node.type === 'ERROR') {
      const what = describe(node, lines);
      found.push({ pos: node.startPosition, msg: what ? `syntax error near ${JSON.stringify(what)}` : 'syntax error' });
      // Report the outermost error only; its children are noise.
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) walk(child);
  };
  walk(tree.rootNode);
  return found;
}

async function main(argv) {
  const targets = argv.length ? argv : ['infra/bicep'];
  const files = [];
  try {
    for (const t of targets) collect(t, files);
  } catch (err) {
    console.error(`bicep-lint: ${err.message}`);
    return 2;
  }
  if (files.length === 0) {
    console.error(`bicep-lint: no .bicep or .bicepparam files under ${targets.join(' ')}`);
    return 2;
  }

  let Parser, Language;
  try {
    ({ Parser, Language } = await import('web-tree-sitter'));
    await Parser.init();
  } catch (err) {
    console.error(`bicep-lint: cannot load web-tree-sitter (run npm ci): ${err.message}`);
    return 2;
  }
  let bicep;
  try {
    bicep = await Language.load(require.resolve('tree-sitter-bicep/tree-sitter-bicep.wasm'));
  } catch (err) {
    console.error(`bicep-lint: cannot load the tree-sitter-bicep grammar (run npm ci): ${err.message}`);
    return 2;
  }
  const parser = new Parser();
  parser.setLanguage(bicep);

  let errors = 0;
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    const tree = parser.parse(file.endsWith('.bicepparam') ? rewriteBicepparam(source) : source);
    const rel = relative(process.cwd(), file);
    const name = rel && !rel.startsWith('..') ? rel : file;
    for (const e of syntaxErrors(tree, source)) {
      console.log(`${name}:${e.pos.row + 1}:${e.pos.column + 1}: ${e.msg}`);
      errors++;
    }
    tree.delete();
  }
  if (errors > 0) {
    console.log(`bicep-lint: ${errors} syntax error(s) in ${files.length} file(s)`);
    return 1;
  }
  console.log(`bicep-lint: ${files.length} file(s) parsed, no syntax errors`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
