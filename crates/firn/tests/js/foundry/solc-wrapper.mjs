#!/usr/bin/env node
// The command line of a `solc` binary over solc-js, as much of it as forge runs: `--version`
// and `--standard-json` (input on stdin, output on stdout). No solc binary can be fetched on
// the machines firn is tested on; the npm package compiles the same way.
import { createRequire } from "node:module";

const solc = createRequire(import.meta.url)("solc");
const args = process.argv.slice(2);
if (args.includes("--version")) {
  console.log("solc, the solidity compiler commandline interface");
  console.log(`Version: ${solc.version().replace(".Emscripten.clang", ".Linux.g++")}`);
} else if (args.includes("--standard-json")) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  process.stdout.write(solc.compile(Buffer.concat(chunks).toString("utf8")));
} else {
  console.error(`solc-wrapper: only --version and --standard-json are supported (got ${args.join(" ")})`);
  process.exit(1);
}
