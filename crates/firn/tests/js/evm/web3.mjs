// web3.js 4 against a running `firn devnet`'s C-Chain: over HTTP it deploys the repo's
// FirnToken, transfers and reads balances and past events; over WebSocket it subscribes to new
// block headers and to the token's Transfer events. Driven by crates/firn/tests/it/evm_viem.rs
// (FIRN_RPC, FIRN_KEY, FIRN_ARTIFACTS), with --test-force-exit: web3.js leaves each sent tx's
// 750-second timeout running after the tx is mined.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Web3 } from 'web3';

const rpc = process.env.FIRN_RPC;
const ws = rpc.replace(/^http/, 'ws').replace(/\/rpc$/, '/ws');
const token = JSON.parse(readFileSync(join(process.env.FIRN_ARTIFACTS, 'FirnToken.json'), 'utf8'));
const bob = '0x000000000000000000000000000000000000b0b0';

const web3 = new Web3(rpc);
const account = web3.eth.accounts.privateKeyToAccount(process.env.FIRN_KEY);
web3.eth.accounts.wallet.add(account);

async function deploy() {
  const contract = new web3.eth.Contract(token.abi);
  const deployed = await contract
    .deploy({ data: `0x${token.bytecode.replace(/^0x/, '')}`, arguments: ['Web3 Token', 'WEB3', 18, 10n ** 24n] })
    .send({ from: account.address });
  return deployed;
}

test('web3.js over HTTP: deploy, transfer, balances, past events', { timeout: 60_000 }, async () => {
  assert.equal(await web3.eth.getChainId(), 43113n);
  assert.ok((await web3.eth.getBalance(account.address)) > 10n ** 21n);
  const deployed = await deploy();
  const receipt = await deployed.methods.transfer(bob, 123n).send({ from: account.address });
  assert.equal(receipt.status, 1n);
  assert.equal(await deployed.methods.balanceOf(bob).call(), 123n);
  const events = await deployed.getPastEvents('Transfer', { fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
  assert.equal(events.length, 1);
  assert.equal(events[0].returnValues.to.toLowerCase(), bob);
  assert.equal(events[0].returnValues.value, 123n);
  const block = await web3.eth.getBlock(receipt.blockNumber, true);
  assert.equal(block.transactions[0].hash, receipt.transactionHash);
});

test('web3.js over WebSocket: newBlockHeaders and contract event subscriptions', { timeout: 60_000 }, async () => {
  const deployed = await deploy();
  const live = new Web3(ws);
  try {
  const watched = new live.eth.Contract(token.abi, deployed.options.address);
  const heads = await live.eth.subscribe('newBlockHeaders');
  const transfers = watched.events.Transfer();
  const connected = new Promise((resolve, reject) => {
    transfers.on('connected', resolve);
    transfers.on('error', reject);
  });
  const seen = { heads: [], transfers: [] };
  heads.on('data', (h) => seen.heads.push(h.number));
  transfers.on('data', (e) => seen.transfers.push(e.returnValues.value));
  await connected;
  const receipt = await deployed.methods.transfer(bob, 7n).send({ from: account.address });
  const deadline = Date.now() + 20_000;
  while ((seen.heads.length < 1 || seen.transfers.length < 1) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(seen.transfers, [7n]);
  assert.ok(seen.heads.includes(receipt.blockNumber), `${seen.heads} vs ${receipt.blockNumber}`);
  await heads.unsubscribe();
  await transfers.unsubscribe();
  } finally {
    live.provider.disconnect();
  }
});
