// Event listeners against a running `firn devnet`'s C-Chain. Over HTTP they poll geth's
// filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
// eth_getFilterChanges): viem's watchContractEvent, watchPendingTransactions and block filter,
// and ethers v6 contract and pending-transaction listeners on a JsonRpcProvider; those tests
// count the RPC methods the library sent, so a silent fallback to eth_getLogs would fail them.
// Over WebSocket (/ext/bc/C/ws) they subscribe: viem's webSocket transport (watchBlocks,
// watchContractEvent) and ethers v6's WebSocketProvider. Driven by
// crates/firn/tests/it/evm_viem.rs (FIRN_RPC, FIRN_KEY, FIRN_ARTIFACTS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, http, parseEther, webSocket } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ethers } from 'ethers';

const rpc = process.env.FIRN_RPC;
const ws = rpc.replace(/^http/, 'ws').replace(/\/rpc$/, '/ws');
const account = privateKeyToAccount(process.env.FIRN_KEY);
const token = JSON.parse(readFileSync(join(process.env.FIRN_ARTIFACTS, 'FirnToken.json'), 'utf8'));
const bob = '0x000000000000000000000000000000000000b0b0';
const carol = '0x000000000000000000000000000000000000ca01';

const chain = defineChain({
  id: 43113,
  name: 'firn devnet C-Chain',
  nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
});

// The JSON-RPC methods a client sent, counted.
const sent = new Map();
async function countMethods(request) {
  const body = await request.clone().json();
  for (const { method } of [body].flat()) sent.set(method, (sent.get(method) ?? 0) + 1);
}
const publicClient = createPublicClient({
  chain,
  transport: http(rpc, { onFetchRequest: countMethods }),
  pollingInterval: 50,
});
const wallet = createWalletClient({ account, chain, transport: http(rpc) });

// Resolves with the first `n` values `subscribe(push)` pushes, or rejects after 20 s.
function firstValues(n, subscribe) {
  return new Promise((resolve, reject) => {
    const got = [];
    let stop = () => {};
    const timer = setTimeout(() => { stop(); reject(new Error(`only ${got.length} of ${n} within 20 s`)); }, 20_000);
    stop = subscribe((v) => {
      got.push(v);
      if (got.length === n) { clearTimeout(timer); stop(); resolve(got); }
    });
  });
}

async function deployToken() {
  const hash = await wallet.deployContract({
    abi: token.abi, bytecode: token.bytecode, args: ['Watched', 'WTCH', 18, parseEther('1000')],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  return receipt.contractAddress;
}

async function transfer(address, to, amount) {
  const hash = await wallet.writeContract({ address, abi: token.abi, functionName: 'transfer', args: [to, amount] });
  return publicClient.waitForTransactionReceipt({ hash });
}

test('viem: watchContractEvent and watchPendingTransactions poll filters', async () => {
  const address = await deployToken();
  sent.clear();
  const events = firstValues(2, (push) => publicClient.watchContractEvent({
    address, abi: token.abi, eventName: 'Transfer',
    onLogs: (logs) => logs.forEach(push),
    onError: (e) => assert.fail(e),
  }));
  const pending = firstValues(1, (push) => publicClient.watchPendingTransactions({
    onTransactions: (hashes) => hashes.forEach(push),
    onError: (e) => assert.fail(e),
  }));
  // Let both install their filters before anything happens.
  while (!sent.get('eth_newFilter') || !sent.get('eth_newPendingTransactionFilter')) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const blockFilter = await publicClient.createBlockFilter();
  const first = await transfer(address, bob, 5n);
  const second = await transfer(address, carol, 7n);
  const logs = await events;
  assert.deepEqual(logs.map((l) => [l.args.to.toLowerCase(), l.args.value]), [[bob, 5n], [carol, 7n]]);
  const [seen] = await pending;
  assert.ok([first.transactionHash, second.transactionHash].includes(seen), `pending ${seen}`);
  const blockHashes = await publicClient.getFilterChanges({ filter: blockFilter });
  assert.ok(blockHashes.includes(first.blockHash) && blockHashes.includes(second.blockHash), `${blockHashes}`);
  assert.deepEqual(await publicClient.getFilterChanges({ filter: blockFilter }), [], 'reported once');
  assert.equal(await publicClient.uninstallFilter({ filter: blockFilter }), true);
  assert.ok(sent.get('eth_getFilterChanges') > 0, JSON.stringify([...sent]));
  assert.equal(sent.get('eth_getLogs') ?? 0, 0, 'no fallback to eth_getLogs');
});

test('ethers v6: contract and pending-transaction listeners on a JsonRpcProvider', async () => {
  const address = await deployToken();
  const request = new ethers.FetchRequest(rpc);
  const methods = new Map();
  const answered = new Map();
  const count = (map, body) => {
    for (const { method } of [JSON.parse(body)].flat()) map.set(method, (map.get(method) ?? 0) + 1);
  };
  request.preflightFunc = async (r) => { count(methods, ethers.toUtf8String(r.body)); return r; };
  request.processFunc = async (r, resp) => { count(answered, ethers.toUtf8String(r.body)); return resp; };
  const provider = new ethers.JsonRpcProvider(request, 43113, { staticNetwork: true, pollingInterval: 50 });
  const contract = new ethers.Contract(address, token.abi, provider);
  const seen = { transfers: [], pending: [] };
  await contract.on('Transfer', (from, to, value) => seen.transfers.push([to.toLowerCase(), value]));
  await provider.on('pending', (hash) => seen.pending.push(hash));
  const until = async (done) => {
    const deadline = Date.now() + 20_000;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(done(), `timed out: ${JSON.stringify([...methods])}`);
  };
  await until(() => answered.get('eth_newFilter') && answered.get('eth_newPendingTransactionFilter'));
  const first = await transfer(address, bob, 11n);
  const second = await transfer(address, carol, 13n);
  await until(() => seen.transfers.length >= 2 && seen.pending.length >= 1);
  assert.deepEqual(seen.transfers, [[bob, 11n], [carol, 13n]]);
  assert.ok([first.transactionHash, second.transactionHash].includes(seen.pending[0]), `pending ${seen.pending[0]}`);
  assert.ok(methods.get('eth_getFilterChanges') > 0, JSON.stringify([...methods]));
  // Uninstalled before the provider goes.
  await contract.removeAllListeners();
  await provider.removeAllListeners();
  await until(() => answered.get('eth_uninstallFilter') >= 2);
  provider.destroy();
});

test('viem over WebSocket: watchBlocks and watchContractEvent subscribe', async () => {
  const address = await deployToken();
  const wsClient = createPublicClient({ chain, transport: webSocket(ws) });
  assert.equal(await wsClient.getChainId(), 43113);
  const blocks = firstValues(2, (push) => wsClient.watchBlocks({ onBlock: push, onError: (e) => assert.fail(e) }));
  const events = firstValues(2, (push) => wsClient.watchContractEvent({
    address, abi: token.abi, eventName: 'Transfer',
    onLogs: (logs) => logs.forEach(push),
    onError: (e) => assert.fail(e),
  }));
  // Subscribed once the socket has answered a call after them.
  await wsClient.getBlockNumber();
  const first = await transfer(address, bob, 3n);
  const second = await transfer(address, carol, 4n);
  const logs = await events;
  assert.deepEqual(logs.map((l) => [l.args.to.toLowerCase(), l.args.value]), [[bob, 3n], [carol, 4n]]);
  const heads = await blocks;
  assert.ok(heads.some((b) => b.hash === first.blockHash) || heads.some((b) => b.hash === second.blockHash),
    `${heads.map((b) => b.hash)} vs ${first.blockHash}, ${second.blockHash}`);
  assert.equal(typeof heads[0].number, 'bigint');
  await wsClient.transport.getRpcClient().then((c) => c.close());
});

test('ethers v6 WebSocketProvider: contract and block listeners', async () => {
  const address = await deployToken();
  const provider = new ethers.WebSocketProvider(ws, 43113);
  const contract = new ethers.Contract(address, token.abi, provider);
  const seen = { transfers: [], blocks: [] };
  await contract.on('Transfer', (from, to, value) => seen.transfers.push([to.toLowerCase(), value]));
  await provider.on('block', (n) => seen.blocks.push(n));
  // The socket answers in order: a call answered after the subscriptions means they are in.
  await provider.getBlockNumber();
  const first = await transfer(address, bob, 21n);
  await transfer(address, carol, 22n);
  const deadline = Date.now() + 20_000;
  while ((seen.transfers.length < 2 || seen.blocks.length < 1) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(seen.transfers, [[bob, 21n], [carol, 22n]]);
  assert.ok(seen.blocks.includes(Number(first.blockNumber)), `${seen.blocks} vs ${first.blockNumber}`);
  await provider.destroy();
});
