// Deploys a Counter with Hardhat's ethers plugin, increments it, reads it and its event back,
// on whichever network `--network` names. Prints one JSON line of what it saw.
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
  console.log(JSON.stringify({ chainId, address, block: receipt.blockNumber }));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
