// Hardhat against firn: `firn` is the devnet's C-Chain, `firnL1` an L1 (FIRN_RPC, FIRN_L1_RPC,
// FIRN_KEY from crates/firn/tests/it/hardhat.rs). Solidity is compiled by the solc-js build
// from npm: Hardhat would fetch a compiler, and nothing can be fetched here.
require("@nomicfoundation/hardhat-ethers");
const path = require("node:path");
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

const SOLC = "0.8.28";

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, hre, runSuper) => {
  if (args.solcVersion !== SOLC) return runSuper();
  const solc = require("solc");
  return {
    compilerPath: path.join(__dirname, "node_modules", "solc", "soljson.js"),
    isSolcJs: true,
    version: SOLC,
    longVersion: solc.version(),
  };
});

const accounts = process.env.FIRN_KEY ? [process.env.FIRN_KEY] : [];
module.exports = {
  solidity: {
    version: SOLC,
    settings: { evmVersion: "shanghai", optimizer: { enabled: true, runs: 200 } },
  },
  networks: {
    firn: { url: process.env.FIRN_RPC ?? "http://127.0.0.1:9650/ext/bc/C/rpc", accounts, chainId: 43113 },
    firnL1: { url: process.env.FIRN_L1_RPC ?? "http://127.0.0.1:9650/ext/bc/L1/rpc", accounts },
  },
};
