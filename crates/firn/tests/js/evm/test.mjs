// viem against a running `firn devnet`: deploys the repo's three token contracts on the
// C-Chain, transfers, reads balances and logs, estimates gas. Driven by
// crates/firn/tests/it/evm_viem.rs, which passes FIRN_RPC, FIRN_KEY and FIRN_ARTIFACTS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPublicClient, createWalletClient, defineChain, http, parseEther, parseAbiItem,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const rpc = process.env.FIRN_RPC;
const artifacts = process.env.FIRN_ARTIFACTS;
const account = privateKeyToAccount(process.env.FIRN_KEY);
const load = (name) => JSON.parse(readFileSync(join(artifacts, `${name}.json`), 'utf8'));

const chain = defineChain({
  id: 43113,
  name: 'firn devnet C-Chain',
  nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
});
const publicClient = createPublicClient({ chain, transport: http(rpc), pollingInterval: 50 });
const wallet = createWalletClient({ account, chain, transport: http(rpc) });
const bob = '0x000000000000000000000000000000000000b0b0';

async function deploy(name, args) {
  const { abi, bytecode } = load(name);
  const hash = await wallet.deployContract({ abi, bytecode, args });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
  assert.ok(receipt.contractAddress);
  return { abi, address: receipt.contractAddress };
}

async function send(contract, functionName, args) {
  const { request } = await publicClient.simulateContract({
    account, address: contract.address, abi: contract.abi, functionName, args,
  });
  const hash = await wallet.writeContract(request);
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
  return receipt;
}

test('chain identity', async () => {
  assert.equal(await publicClient.getChainId(), 43113);
  assert.ok((await publicClient.getBalance({ address: account.address })) > parseEther('1000'));
  const block = await publicClient.getBlock();
  assert.equal(typeof block.baseFeePerGas, 'bigint');
});

test('native transfer', async () => {
  const before = await publicClient.getBalance({ address: bob });
  const hash = await wallet.sendTransaction({ to: bob, value: parseEther('1.5') });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
  assert.equal(receipt.gasUsed, 21000n);
  assert.equal(await publicClient.getBalance({ address: bob }), before + parseEther('1.5'));
  const tx = await publicClient.getTransaction({ hash });
  assert.equal(tx.from.toLowerCase(), account.address.toLowerCase());
  assert.equal(tx.type, 'eip1559');
});

test('ERC-20: deploy, estimate, transfer, balances, logs', async () => {
  const token = await deploy('FirnToken', ['Firn Token', 'FIRN', 18, parseEther('1000000')]);
  const read = (functionName, args = []) =>
    publicClient.readContract({ address: token.address, abi: token.abi, functionName, args });
  assert.equal(await read('symbol'), 'FIRN');
  assert.equal(await read('balanceOf', [account.address]), parseEther('1000000'));
  const gas = await publicClient.estimateContractGas({
    account, address: token.address, abi: token.abi, functionName: 'transfer', args: [bob, parseEther('25')],
  });
  assert.ok(gas > 21000n && gas < 100000n, `estimate ${gas}`);
  const receipt = await send(token, 'transfer', [bob, parseEther('25')]);
  assert.equal(await read('balanceOf', [bob]), parseEther('25'));
  const logs = await publicClient.getLogs({
    address: token.address,
    event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
    args: { to: bob },
    fromBlock: 0n,
    toBlock: 'latest',
  });
  assert.equal(logs.length, 1);
  assert.equal(logs[0].args.value, parseEther('25'));
  assert.equal(logs[0].transactionHash, receipt.transactionHash);
  const events = await publicClient.getContractEvents({ address: token.address, abi: token.abi, eventName: 'Transfer', fromBlock: 0n });
  assert.equal(events.length, 2); // the constructor's mint and the transfer
  await assert.rejects(
    publicClient.simulateContract({
      account: bob, address: token.address, abi: token.abi, functionName: 'transfer', args: [account.address, parseEther('1000')],
    }),
    /revert/i,
  );
});

test('ERC-721: mint, transfer, tokenURI', async () => {
  const nft = await deploy('FirnCollectible', ['Firn Collectible', 'FNFT']);
  await send(nft, 'mint', [account.address]);
  const read = (functionName, args = []) =>
    publicClient.readContract({ address: nft.address, abi: nft.abi, functionName, args });
  const events = await publicClient.getContractEvents({ address: nft.address, abi: nft.abi, eventName: 'Transfer', fromBlock: 0n });
  const tokenId = events[0].args.tokenId;
  assert.equal((await read('ownerOf', [tokenId])).toLowerCase(), account.address.toLowerCase());
  await send(nft, 'transferFrom', [account.address, bob, tokenId]);
  assert.equal((await read('ownerOf', [tokenId])).toLowerCase(), bob);
  assert.match(await read('tokenURI', [tokenId]), /^data:application\/json/);
});

test('ERC-1155: mint and balances', async () => {
  const multi = await deploy('FirnMultiToken', ['Firn Multi']);
  await send(multi, 'mint', [account.address, 7n, 100n]);
  await send(multi, 'safeTransferFrom', [account.address, bob, 7n, 40n, '0x']);
  const balance = (who) => publicClient.readContract({ address: multi.address, abi: multi.abi, functionName: 'balanceOf', args: [who, 7n] });
  assert.equal(await balance(account.address), 60n);
  assert.equal(await balance(bob), 40n);
  const receipts = await publicClient.getContractEvents({ address: multi.address, abi: multi.abi, eventName: 'TransferSingle', fromBlock: 0n });
  assert.equal(receipts.length, 2);
});
