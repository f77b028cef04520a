// Deploys a Counter with Hardhat's ethers plugin, increments it, reads it and its event back,
// on whichever network `--network` names; then the dev loop (hardhat_setBalance, an
// impersonated signer, evm_increaseTime, hardhat_mine). Prints one JSON line of what it saw.
const assert = require("node:assert/strict");
const hre = require("hardhat");

async function main() {
  const [signer] = await hre.ethers.getSigners();
  const chainId = Number(await hre.network.provider.send("eth_chainId"));
  const counter = await hre.ethers.deployContract("Counter");
  await counter.waitForDeployment();
  const address = await counter.getAddress();
  assert.ok((await hre.ethers.provider.getCode(address)).length > 2, "code deployed");
  const tx = await counter.increment();
  const receipt = await tx.wait();
  assert.equal(receipt.status, 1);
  assert.equal(await counter.number(), 1n);
  const events = await counter.queryFilter(counter.filters.Incremented(), receipt.blockNumber, receipt.blockNumber);
  assert.equal(events.length, 1);
  assert.equal(events[0].args.by, signer.address);
  assert.equal(events[0].args.number, 1n);
  // A listener on the same contract (polls a filter) sees the next increment.
  const seen = new Promise((resolve) => counter.once("Incremented", (by, number) => resolve(number)));
  await (await counter.increment()).wait();
  assert.equal(await seen, 2n);
  // The dev loop, as Hardhat's helpers drive it: an account funded directly and sent for
  // without its key, then the clock moved and blocks mined on demand.
  const whale = "0x000000000000000000000000000000000000a11e";
  await hre.network.provider.send("hardhat_setBalance", [whale, "0x56bc75e2d63100000"]);
  assert.equal(await hre.ethers.provider.getBalance(whale), 100n * 10n ** 18n);
  // Hardhat's own provider signs locally for its configured accounts and refuses others, so
  // the impersonated signer comes from a plain ethers provider on the same node (ethers checks
  // that eth_accounts lists it).
  await hre.network.provider.send("hardhat_impersonateAccount", [whale]);
  const plain = new hre.ethers.JsonRpcProvider(hre.network.config.url);
  const impersonated = await plain.getSigner(whale);
  const byWhale = await (await counter.connect(impersonated).increment()).wait();
  assert.equal(byWhale.status, 1);
  assert.equal(byWhale.from.toLowerCase(), whale);
  assert.equal(await counter.number(), 3n);
  const before = await hre.ethers.provider.getBlock("latest");
  await hre.network.provider.send("evm_increaseTime", [3600]);
  await hre.network.provider.send("hardhat_mine", ["0x2"]);
  const after = await hre.ethers.provider.getBlock("latest");
  assert.equal(after.number, before.number + 2);
  assert.ok(after.timestamp >= before.timestamp + 3600, `${before.timestamp} -> ${after.timestamp}`);
  console.log(JSON.stringify({ chainId, address, block: receipt.blockNumber, impersonated: byWhale.from }));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
