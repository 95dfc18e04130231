#!/usr/bin/env node
// Serve a JavaScript solution of the brief to hookcheck (spec/protocol.md, lines mode).
//
//     hookcheck check --impl "node harness/adapters/node/hookcheck_adapter.mjs solution.js"
//
// The solution is a CommonJS or ES module that exports run(operations), by name or as its
// default export. It may export HOOKCHECK_PARTS = ["retries", "ordering"] to declare the parts it
// implements (the brief's three by default); --parts overrides both. The roadmap's parts are
// declared the same way ("policy", "retry-after", "auto-disable", "dead-letters", "signatures",
// "throttle", "breaker", "expiry"); a part needs the parts it builds on, and hookcheck refuses a declaration without them. Node 18 or later, no dependencies.
//
// JSON.parse keeps number values, not their spelling (10.0 and 10 are one number), so the
// adapter declares "numbers": "values": the case steps that depend on spelling are not sent.
// Anything the solution prints goes to stderr, so it cannot corrupt the protocol on stdout. An
// exception thrown by run() (or a rejected promise it returns) is answered "errored" with its
// stack, and the adapter keeps serving.

import { createInterface } from "node:readline";
import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const PROTOCOL = 1;
// What a solution that declares nothing offers: the brief's own parts.
const BRIEF_PARTS = ["retries", "ordering", "pause"];
// Every part hookcheck knows, the roadmap's included (hookcheck's Part::ALL).
const PARTS = [...BRIEF_PARTS, "policy", "retry-after", "auto-disable", "dead-letters", "signatures", "throttle", "breaker", "expiry"];
const USAGE = `usage: node hookcheck_adapter.mjs SOLUTION [--parts retries,ordering] [--name NAME] [--per-case]

Serves SOLUTION (a module exporting run(operations)) to hookcheck over spec/protocol.md.
--parts declares the parts it implements (default: the brief's three, retries,ordering,pause;
the roadmap's are policy, retry-after, auto-disable, dead-letters, signatures, throttle, breaker and expiry).
--per-case answers one run instead: a JSON array of operations on stdin, the results on stdout
(for hookcheck check --per-case --numbers values).`;

function fail(message) {
  process.stderr.write(`hookcheck adapter: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { solution: null, parts: null, name: null, perCase: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${arg} needs a value`));
    if (arg === "-h" || arg === "--help") {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (arg === "--parts") {
      args.parts = value().split(",").filter(Boolean);
    } else if (arg.startsWith("--parts=")) {
      args.parts = arg.slice("--parts=".length).split(",").filter(Boolean);
    } else if (arg === "--per-case") {
      args.perCase = true;
    } else if (arg === "--name") {
      args.name = value();
    } else if (arg.startsWith("-")) {
      fail(`unknown option ${arg}\n${USAGE}`);
    } else if (args.solution === null) {
      args.solution = arg;
    } else {
      fail(`one solution file only, got ${args.solution} and ${arg}`);
    }
  }
  if (args.solution === null) fail(`no solution file\n${USAGE}`);
  return args;
}

const args = parseArgs(process.argv.slice(2));

// The protocol owns the real stdout; everything the solution prints goes to stderr.
const writeOut = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
for (const level of ["log", "info", "debug"]) console[level] = console.error;

const path = resolve(args.solution);
if (!existsSync(path)) fail(`no such file: ${args.solution}`);
let mod;
try {
  mod = await import(pathToFileURL(path).href);
} catch (e) {
  fail(`cannot load ${args.solution}: ${e?.stack ?? e}`);
}
const exported = (key) => mod[key] ?? mod.default?.[key];
const run =
  typeof exported("run") === "function"
    ? exported("run")
    : typeof mod.default === "function"
      ? mod.default
      : fail(`${args.solution} exports no run(operations) function`);
const parts = args.parts ?? exported("HOOKCHECK_PARTS") ?? BRIEF_PARTS;
if (!Array.isArray(parts) || parts.some((p) => !PARTS.includes(p))) {
  fail(`unknown parts ${JSON.stringify(parts)}; use ${PARTS.join(", ")}`);
}

function send(message) {
  writeOut(`${JSON.stringify(message)}\n`);
}

async function answer(seq, operations) {
  try {
    let results = run(operations);
    if (results !== null && typeof results?.then === "function") results = await results;
    if (!Array.isArray(results)) {
      throw new TypeError(`run returned ${results === null ? "null" : typeof results}, not a list`);
    }
    // Serialised inside the try: a result JSON cannot hold (a BigInt) errors this case only.
    writeOut(`${JSON.stringify({ type: "results", seq, results })}\n`);
  } catch (e) {
    const name = e?.name ?? "Error";
    send({
      type: "errored",
      seq,
      message: `${name}: ${e?.message ?? String(e)}`,
      traceback: String(e?.stack ?? e),
    });
  }
}

if (args.perCase) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  let results;
  try {
    results = await run(JSON.parse(Buffer.concat(chunks).toString("utf8")));
  } catch (e) {
    fail(`run failed: ${e?.stack ?? e}`);
  }
  writeOut(`${JSON.stringify(results)}\n`);
  process.exit(0);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stderr.write(`hookcheck adapter: ignoring a line that is not JSON\n`);
    continue;
  }
  if (message?.type === "hello") {
    send({
      type: "hello",
      protocol: PROTOCOL,
      name: args.name ?? basename(args.solution),
      language: "javascript",
      version: process.version,
      parts,
      numbers: "values",
    });
  } else if (message?.type === "run") {
    await answer(message.seq, message.operations);
  } else if (message?.type === "stop") {
    lines.close();
    break;
  }
  // Unknown message types are ignored, as the protocol asks.
}
