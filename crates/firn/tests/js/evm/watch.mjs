// Event listeners over HTTP against a running `firn devnet`'s C-Chain: they poll geth's
// filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
// eth_getFilterChanges). viem's watchContractEvent, watchPendingTransactions and block filter,
// and ethers v6 contract and pending-transaction listeners on a JsonRpcProvider. Each test counts the RPC methods the
// library sent, so a silent fallback to eth_getLogs would fail it. Driven by
// crates/firn/tests/it/evm_viem.rs (FIRN_RPC, FIRN_KEY, FIRN_ARTIFACTS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ethers } from 'ethers';

const rpc = process.env.FIRN_RPC;
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
  request.preflightFunc = async (r) => {
    for (const { method } of [JSON.parse(ethers.toUtf8String(r.body))].flat()) {
      methods.set(method, (methods.get(method) ?? 0) + 1);
    }
    return r;
  };
  const provider = new ethers.JsonRpcProvider(request, 43113, { staticNetwork: true, pollingInterval: 50 });
  const contract = new ethers.Contract(address, token.abi, provider);
  const transfers = firstValues(2, (push) => {
    const listener = (from, to, value) => push([to.toLowerCase(), value]);
    contract.on('Transfer', listener);
    return () => contract.off('Transfer', listener);
  });
  const pending = firstValues(1, (push) => {
    provider.on('pending', push);
    return () => provider.off('pending', push);
  });
  while (!methods.get('eth_newFilter') || !methods.get('eth_newPendingTransactionFilter')) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const first = await transfer(address, bob, 11n);
  const second = await transfer(address, carol, 13n);
  assert.deepEqual(await transfers, [[bob, 11n], [carol, 13n]]);
  const [seen] = await pending;
  assert.ok([first.transactionHash, second.transactionHash].includes(seen), `pending ${seen}`);
  assert.ok(methods.get('eth_getFilterChanges') > 0, JSON.stringify([...methods]));
  provider.destroy();
});
