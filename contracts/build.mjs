// Compiles contracts/src/*.sol with solc-js into contracts/artifacts/<Contract>.json.
// `--check` compiles and fails if the committed artifacts differ from the sources.
import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const solc = require("solc");
const here = dirname(fileURLToPath(import.meta.url));
const srcDir = join(here, "src");
const outDir = join(here, "artifacts");
const check = process.argv.includes("--check");

// Contracts the devnet deploys; libraries and interfaces are compiled but not written out.
const DEPLOYABLE = ["FirnToken", "FirnCollectible", "FirnMultiToken", "FirnRouter", "FirnProbe", "FirnHostile", "FirnRebasing", "FirnTeleporterMessenger", "FirnTeleporterInbox", "FirnValidatorManager", "FirnTeleporterRegistry"];
// Shanghai: what every Avalanche EVM chain since Durango runs (PUSH0, no Cancun opcodes).
const EVM_VERSION = "shanghai";

const sources = {};
for (const f of readdirSync(srcDir).filter((f) => f.endsWith(".sol")).sort()) {
  sources[f] = { content: readFileSync(join(srcDir, f), "utf8") };
}
const input = {
  language: "Solidity",
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: EVM_VERSION,
    metadata: { bytecodeHash: "none" },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors || []).filter((e) => e.severity === "error");
for (const e of output.errors || []) console.error(e.formattedMessage);
if (errors.length) process.exit(1);

mkdirSync(outDir, { recursive: true });
let stale = 0;
for (const [file, contracts] of Object.entries(output.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    if (!DEPLOYABLE.includes(name)) continue;
    const artifact = {
      contractName: name,
      sourceName: `src/${file}`,
      compiler: `solc ${solc.version()}`,
      evmVersion: EVM_VERSION,
      abi: c.abi,
      bytecode: "0x" + c.evm.bytecode.object,
      deployedBytecode: "0x" + c.evm.deployedBytecode.object,
    };
    const text = JSON.stringify(artifact, null, 2) + "\n";
    const path = join(outDir, `${name}.json`);
    if (check) {
      if (!existsSync(path) || readFileSync(path, "utf8") !== text) {
        console.error(`stale artifact: ${path} does not match src/${file}; run \`npm run build --prefix contracts\``);
        stale++;
      }
    } else {
      writeFileSync(path, text);
      console.log(`wrote ${path}`);
    }
  }
}
if (check && stale) process.exit(1);
if (check) console.log(`artifacts match the sources (${DEPLOYABLE.length} contracts)`);
