// Calls every Data API endpoint firn serves through both official SDKs, follows at least two
// pages of every paged list, and compares totals with what the Rust test wrote into the store.
// Any error — response-validation errors included — fails the run (exit code 1).
//
// Env: FIRN_API_URL (base URL), FIRN_SDK_CONTEXT (JSON: addresses, IDs and expected totals).
// A total left out of the context (a live devnet whose totals the caller cannot know) is not
// compared, but its pages are still followed and validated; `evm: false` skips the EVM
// endpoints (a store without indexed EVM chains), saying so.
import { Avalanche } from "@avalanche-sdk/chainkit";
import { AvaCloudSDK } from "@avalabs/avacloud-sdk";

import { checksummed } from "./lib/rpc.mjs";

const serverURL = process.env.FIRN_API_URL;
const ctx = JSON.parse(process.env.FIRN_SDK_CONTEXT);
const failures = [];
// chainkit gives every Data operation its own server (data-api.avax.network), which only a
// per-call `serverURL` overrides; both SDKs get it on every call.
const o = { serverURL };
// A failure must show at once, not after minutes of backoff.
const noRetries = { strategy: "none" };
let calls = 0;

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

// Collects every item of a paged call; asserts at least `minPages` pages were followed.
async function pages(name, start, field, minPages) {
  const items = [];
  let count = 0;
  for await (const page of await start()) {
    calls++;
    count++;
    items.push(...page.result[field]);
  }
  check(count >= minPages, `${name}: ${count} pages, expected at least ${minPages}`);
  return items;
}

// The same for an SDK method that returns one page, not a pager: follows `nextPageToken`.
async function tokenPages(name, call, field, minPages) {
  const items = [];
  let count = 0;
  let pageToken;
  do {
    const page = await call(pageToken);
    calls++;
    count++;
    items.push(...page[field]);
    pageToken = page.nextPageToken;
  } while (pageToken);
  check(count >= minPages, `${name}: ${count} pages, expected at least ${minPages}`);
  return items;
}

// The context's NFT collection, or (a live devnet's) that of the collector's first collectible.
async function nftCollection(d) {
  if (ctx.nftCollection !== undefined) return ctx.nftCollection;
  calls++;
  const held = await d.evm.address.balances.listCollectibles({ chainId: ctx.chainId, address: ctx.collector, pageSize: 1 }, o);
  return held.result.collectibleBalances[0].address;
}

// The EVM endpoints, skipped when the context says the store has no indexed EVM chain.
const EVM_STEPS = new Set([
  "supportedChains", "getChainInfo", "getLatestBlocks", "getBlock", "getDeploymentTransaction",
  "listErc20Transactions", "listErc721Transactions", "listCollectibleBalances", "getTransaction",
  "listLatestTransactions", "getTransactionsForBlock", "listNativeTransactions",
  "listErc1155Transactions", "listTransactions", "listInternalTransactions", "listTransfers",
  "listContractDeployments", "getContractMetadata", "listLatestTransactionsAllChains",
  "listLatestBlocksAllChains", "listAddressChains", "listTokens", "getTokenDetails",
  "getNativeBalance", "listErc20Balances", "listErc721Balances", "listErc1155Balances",
  "reindexNft",
]);
const skipped = new Set();

async function run(label, sdk) {
  const d = sdk.data;
  const net = { network: "fuji" };
  const P = { ...net, blockchainId: "p-chain" };
  const steps = {
    healthCheck: async () => {
      const h = await d.healthCheck(o);
      check(h.status === "ok", "health ok");
    },
    listLatestPrimaryNetworkTransactions: async () => {
      const txs = await pages("txs", () => d.primaryNetwork.transactions.listLatest({ ...P, addresses: ctx.pAddress, pageSize: 3 }, o), "transactions", 2);
      if (ctx.pAddressTxCount !== undefined) check(txs.length === ctx.pAddressTxCount, `tx count ${txs.length} != ${ctx.pAddressTxCount}`);
      check(new Set(txs.map((t) => t.txHash)).size === txs.length, "no duplicate txs");
    },
    listActivePrimaryNetworkStakingTransactions: async () => {
      await pages("staking", () => d.primaryNetwork.transactions.listActiveStakingTransactions({ ...P, addresses: ctx.stakingAddress, pageSize: 1 }, o), "transactions", 2);
    },
    listLatestPrimaryNetworkBlocks: async () => {
      const blocks = await pages("blocks", () => d.primaryNetwork.blocks.listLatest({ ...P, pageSize: 10 }, o), "blocks", 2);
      if (ctx.pBlockCount !== undefined) {
        check(blocks.length === ctx.pBlockCount, `block count ${blocks.length} != ${ctx.pBlockCount}`);
        check(blocks[0].blockNumber === String(ctx.pBlockCount), `newest first: ${blocks[0].blockNumber} != ${ctx.pBlockCount}`);
      } else {
        // A live devnet keeps making reward blocks on the wall clock: the newest block is at
        // least the height the node had when the context was made (and indexed then).
        check(Number(blocks[0].blockNumber) >= ctx.pHeight, `newest first: ${blocks[0].blockNumber} < the node's ${ctx.pHeight}`);
      }
      const numbers = blocks.map((b) => Number(b.blockNumber));
      check(numbers.every((n, i) => i === 0 || n === numbers[i - 1] - 1), "newest first, no gaps");
      check(new Set(blocks.map((b) => b.blockNumber)).size === blocks.length, "no duplicate blocks");
    },
    listPrimaryNetworkBlocksByNodeId: async () => {
      // A devnet's blocks carry no proposer (no proposervm): then one (empty) page is all.
      const minPages = ctx.proposers === false ? 1 : 2;
      const blocks = await pages("byNode", () => d.primaryNetwork.blocks.listByNodeId({ ...P, nodeId: ctx.nodeId, pageSize: 5 }, o), "blocks", minPages);
      check(blocks.every((b) => b.proposerDetails.proposerNodeId === ctx.nodeId), "proposer");
    },
    getChainIdsForAddresses: async () => {
      calls++;
      const r = await d.primaryNetwork.getChainIdsForAddresses({ ...net, addresses: ctx.pAddress }, o);
      check(r.addresses[0].blockchainIds[0] === "11111111111111111111111111111111LpoYY", "p-chain touched");
    },
    getBlockchainById: async () => {
      calls++;
      const r = await d.primaryNetwork.getBlockchainById({ ...net, blockchainId: ctx.blockchainId }, o);
      const name = ctx.blockchainName ?? "dexchain";
      check(r.blockchainName === name, `blockchain name ${r.blockchainName} != ${name}`);
    },
    listHistoricalPrimaryNetworkRewards: async () => {
      const r = await pages("rewards", () => d.primaryNetwork.rewards.listHistoricalRewards({ ...net, addresses: ctx.rewardAddress, pageSize: 1 }, o), "historicalRewards", 2);
      if (ctx.rewardCount !== undefined) check(r.length === ctx.rewardCount, `reward count ${r.length}`);
    },
    listDelegators: async () => {
      const r = await pages("delegators", () => d.primaryNetwork.listDelegators({ ...net, pageSize: 4 }, o), "delegators", 2);
      if (ctx.delegatorCount !== undefined) check(r.length === ctx.delegatorCount, `delegator count ${r.length}`);
    },
    supportedChains: async () => {
      calls++;
      const r = await d.evm.chains.list({ network: "testnet" }, o);
      check(r.chains.some((c) => c.chainId === ctx.chainId), "chain listed");
    },
    getChainInfo: async () => {
      calls++;
      const r = await d.evm.chains.get({ chainId: ctx.chainId }, o);
      check(r.chainId === ctx.chainId, "chain info");
    },
    getLatestBlocks: async () => {
      const r = await pages("evmBlocks", () => d.evm.blocks.listLatest({ chainId: ctx.chainId, pageSize: 25 }, o), "blocks", 2);
      if (ctx.evmBlockCount !== undefined) check(r.length === ctx.evmBlockCount, `evm block count ${r.length}`);
    },
    getBlock: async () => {
      calls++;
      const r = await d.evm.blocks.get({ chainId: ctx.chainId, blockId: "5" }, o);
      check(r.blockNumber === "5", "block 5");
    },
    getDeploymentTransaction: async () => {
      calls++;
      const r = await d.evm.contracts.getDeploymentTransaction({ chainId: ctx.chainId, address: ctx.contract }, o);
      check(r.nativeTransaction.txHash === ctx.contractTx, "deployment tx");
    },
    listErc20Transactions: async () => {
      const r = await pages("erc20", () => d.evm.address.transactions.listErc20({ chainId: ctx.chainId, address: ctx.evmAddress, pageSize: 2 }, o), "transactions", 2);
      if (ctx.erc20Count !== undefined) check(r.length === ctx.erc20Count, `erc20 count ${r.length} != ${ctx.erc20Count}`);
    },
    listErc721Transactions: async () => {
      await pages("erc721", () => d.evm.address.transactions.listErc721({ chainId: ctx.chainId, address: ctx.erc721Address, pageSize: 1 }, o), "transactions", 2);
    },
    getTransaction: async () => {
      calls++;
      const r = await d.evm.transactions.get({ chainId: ctx.chainId, txHash: ctx.contractTx }, o);
      check(r.nativeTransaction.txHash === ctx.contractTx, "transaction by hash");
      const n = r.nativeTransaction;
      check(n.method.callType === "CONTRACT_CREATION" && n.method.methodName === "Contract Created", "a deployment");
      check([n.from, n.to].every((p) => p.address === checksummed(p.address)), "EIP-55 addresses");
    },
    listLatestTransactions: async () => {
      const r = await pages("evmTxs", () => d.evm.transactions.listLatest({ chainId: ctx.chainId, pageSize: 25 }, o), "transactions", 2);
      const keys = r.map((t) => [Number(t.blockNumber), t.blockIndex]);
      check(keys.every((k, i) => i === 0 || k[0] < keys[i - 1][0] || (k[0] === keys[i - 1][0] && k[1] < keys[i - 1][1])), "newest first, no repeats");
      if (ctx.evmTxCount !== undefined) check(r.length === ctx.evmTxCount, `evm tx count ${r.length} != ${ctx.evmTxCount}`);
      const failed = await pages("failedTxs", () => d.evm.transactions.listLatest({ chainId: ctx.chainId, status: "failed", pageSize: 2 }, o), "transactions", ctx.failedTxCount > 2 ? 2 : 1);
      check(failed.every((t) => t.txStatus === "0"), "only failed");
      if (ctx.failedTxCount !== undefined) check(failed.length === ctx.failedTxCount, `failed count ${failed.length} != ${ctx.failedTxCount}`);
    },
    getTransactionsForBlock: async () => {
      calls++;
      const t = await d.evm.transactions.get({ chainId: ctx.chainId, txHash: ctx.contractTx }, o);
      const block = ctx.busyBlock ?? t.nativeTransaction.blockNumber;
      const r = await tokenPages("blockTxs", (pageToken) => d.evm.blocks.listTransactions({ chainId: ctx.chainId, blockId: String(block), pageSize: 1, pageToken }, o), "transactions", ctx.busyBlockTxCount > 1 ? 2 : 1);
      check(r.every((x, i) => x.blockNumber === String(block) && x.blockIndex === i), "the block's, in block order");
      if (ctx.busyBlockTxCount !== undefined) check(r.length === ctx.busyBlockTxCount, `block tx count ${r.length}`);
      else check(r.some((x) => x.txHash === ctx.contractTx), "the deployment is in its block");
    },
    listNativeTransactions: async () => {
      const r = await pages("native", () => d.evm.address.transactions.listNative({ chainId: ctx.chainId, address: ctx.evmAddress, pageSize: 2 }, o), "transactions", ctx.nativeTxCount > 2 ? 2 : 1);
      const me = ctx.evmAddress.toLowerCase();
      check(r.every((t) => t.from.address.toLowerCase() === me || t.to.address.toLowerCase() === me), "the address's");
      if (ctx.nativeTxCount !== undefined) check(r.length === ctx.nativeTxCount, `native count ${r.length} != ${ctx.nativeTxCount}`);
    },
    listErc1155Transactions: async () => {
      const address = ctx.erc1155Address ?? ctx.collector;
      const r = await pages("erc1155", () => d.evm.address.transactions.listErc1155({ chainId: ctx.chainId, address, pageSize: 2 }, o), "transactions", ctx.erc1155Count > 2 ? 2 : 1);
      if (ctx.erc1155Count !== undefined) check(r.length === ctx.erc1155Count, `erc1155 count ${r.length} != ${ctx.erc1155Count}`);
    },
    listTransactions: async () => {
      const me = ctx.evmAddress.toLowerCase();
      const r = await pages("activity", () => d.evm.address.transactions.list({ chainId: ctx.chainId, address: ctx.evmAddress, pageSize: 2 }, o), "transactions", ctx.activityCount > 2 ? 2 : 1);
      const keys = r.map((t) => [Number(t.nativeTransaction.blockNumber), t.nativeTransaction.blockIndex]);
      check(keys.every((k, i) => i === 0 || k[0] < keys[i - 1][0] || (k[0] === keys[i - 1][0] && k[1] < keys[i - 1][1])), "newest first, no repeats");
      const mine = (x) => x.from.address.toLowerCase() === me || x.to.address.toLowerCase() === me;
      for (const t of r) {
        const parts = [...(t.erc20Transfers ?? []), ...(t.erc721Transfers ?? []), ...(t.erc1155Transfers ?? []), ...(t.internalTransactions ?? [])];
        check(mine(t.nativeTransaction) || parts.some(mine), `${t.nativeTransaction.txHash} involves the address`);
        check(parts.every(mine), "only the address's transfers and calls");
      }
      if (ctx.activityCount !== undefined) check(r.length === ctx.activityCount, `activity count ${r.length} != ${ctx.activityCount}`);
    },
    listInternalTransactions: async () => {
      const address = ctx.internalAddress ?? ctx.evmAddress;
      const r = await pages("internal", () => d.evm.address.transactions.listInternal({ chainId: ctx.chainId, address, pageSize: 2 }, o), "transactions", ctx.internalCount > 2 ? 2 : 1);
      check(r.every((i) => i.internalTxType.startsWith("CREATE") || i.value !== "0"), "only calls that move value");
      if (ctx.internalCount !== undefined) check(r.length === ctx.internalCount, `internal count ${r.length} != ${ctx.internalCount}`);
    },
    listTransfers: async () => {
      const token = ctx.erc20Token ?? ctx.contract;
      const r = await pages("tokenTransfers", () => d.evm.contracts.listTransfers({ chainId: ctx.chainId, address: token, pageSize: 3 }, o), "transfers", ctx.tokenTransferCount > 3 ? 2 : 1);
      if (ctx.tokenTransferCount !== undefined) check(r.length === ctx.tokenTransferCount, `token transfer count ${r.length} != ${ctx.tokenTransferCount}`);
    },
    listContractDeployments: async () => {
      calls++;
      const t = await d.evm.transactions.get({ chainId: ctx.chainId, txHash: ctx.contractTx }, o);
      const deployer = ctx.deployer ?? t.nativeTransaction.from.address;
      const r = await pages("deployments", () => d.evm.address.contracts.listDeployments({ chainId: ctx.chainId, address: deployer, pageSize: 2 }, o), "contracts", ctx.deployedCount > 2 ? 2 : 1);
      if (ctx.deployer === undefined) check(r.some((c) => c.address.toLowerCase() === ctx.contract.toLowerCase()), "the deployer's contract is listed");
      if (ctx.deployedCount !== undefined) check(r.length === ctx.deployedCount, `deployed count ${r.length} != ${ctx.deployedCount}`);
    },
    getContractMetadata: async () => {
      calls++;
      const r = await d.evm.contracts.getMetadata({ chainId: ctx.chainId, address: ctx.contract }, o);
      check(r.address.toLowerCase() === ctx.contract.toLowerCase(), "the contract");
      check(r.deploymentDetails?.txHash === ctx.contractTx, "its deployment");
    },
    listLatestTransactionsAllChains: async () => {
      const r = await pages("allTxs", () => d.evm.transactions.listLatestAllChains({ network: "testnet", pageSize: 25 }, o), "transactions", 2);
      const ts = r.map((t) => t.blockTimestamp);
      check(ts.every((x, i) => i === 0 || x <= ts[i - 1]), "newest first across chains");
      check(new Set(r.map((t) => t.txHash)).size === r.length, "no repeats");
      if (ctx.allChainsTxCount !== undefined) check(r.length === ctx.allChainsTxCount, `all-chains tx count ${r.length} != ${ctx.allChainsTxCount}`);
    },
    listLatestBlocksAllChains: async () => {
      const r = await pages("allBlocks", () => d.evm.blocks.listLatestAllChains({ network: "testnet", pageSize: 25 }, o), "blocks", 2);
      const ts = r.map((b) => b.blockTimestamp);
      check(ts.every((x, i) => i === 0 || x <= ts[i - 1]), "newest first across chains");
      check(new Set(r.map((b) => `${b.chainId}/${b.blockNumber}`)).size === r.length, "no repeats");
      if (ctx.allChainsBlockCount !== undefined) check(r.length === ctx.allChainsBlockCount, `all-chains block count ${r.length} != ${ctx.allChainsBlockCount}`);
    },
    listAddressChains: async () => {
      calls++;
      const r = await d.evm.address.chains.list({ address: ctx.evmAddress }, o);
      check(r.indexedChains.some((c) => c.chainId === ctx.chainId), "the address's chain");
    },
    listTokens: async () => {
      const collection = await nftCollection(d);
      const r = await pages("nftTokens", () => d.nfts.list({ chainId: ctx.chainId, address: collection, pageSize: 2 }, o), "tokens", ctx.nftTokenCount > 2 ? 2 : 1);
      const ids = r.map((t) => BigInt(t.tokenId));
      check(ids.every((x, i) => i === 0 || x > ids[i - 1]), "by token ID, no repeats");
      if (ctx.nftTokenCount !== undefined) check(r.length === ctx.nftTokenCount, `token count ${r.length} != ${ctx.nftTokenCount}`);
    },
    getTokenDetails: async () => {
      const collection = await nftCollection(d);
      const first = await d.nfts.list({ chainId: ctx.chainId, address: collection, pageSize: 1 }, o);
      const listed = first.result.tokens[0];
      calls += 2;
      const r = await d.nfts.get({ chainId: ctx.chainId, address: collection, tokenId: listed.tokenId }, o);
      check(r.tokenId === listed.tokenId && r.address === listed.address, "the listed token");
    },
    listCollectibleBalances: async () => {
      const r = await pages("collectibles", () => d.evm.address.balances.listCollectibles({ chainId: ctx.chainId, address: ctx.collector, pageSize: 1 }, o), "collectibleBalances", Math.min(2, ctx.collectibleCount ?? 2));
      if (ctx.collectibleCount !== undefined) check(r.length === ctx.collectibleCount, `collectible count ${r.length}`);
    },
    reindexNft: async () => {
      // Each SDK asks for its own token; a second within the hour must be refused with a 429.
      const collection = await nftCollection(d);
      const listed = await d.nfts.list({ chainId: ctx.chainId, address: collection, pageSize: 2 }, o);
      const token = listed.result.tokens[label === "chainkit" ? 0 : 1] ?? listed.result.tokens[0];
      const ask = () => d.nfts.reindex({ chainId: ctx.chainId, address: collection, tokenId: token.tokenId }, o);
      calls += 3;
      // Another run over the same store (two servers on one database) may have queued it.
      const first = await ask().then(() => 201, (e) => e);
      check(first === 201 || (first?.statusCode === 429 && String(first.body$ ?? first.message).includes("less than an hour")), `reindex: ${first}`);
      const again = await ask().then(() => 201, (e) => e);
      check(again?.statusCode === 429, `reindex twice within the hour: ${again}`);
    },
    getNativeBalance: async () => {
      calls++;
      const r = await d.evm.address.balances.getNative({ chainId: ctx.chainId, address: ctx.evmAddress, currency: "usd" }, o);
      check(/^[0-9]+$/.test(r.nativeTokenBalance.balance), `a balance: ${r.nativeTokenBalance.balance}`);
      check(r.nativeTokenBalance.chainId === ctx.chainId, "the chain's token");
    },
    listErc20Balances: async () => {
      const address = ctx.erc20Holder ?? ctx.evmAddress;
      const r = await pages("erc20Balances", () => d.evm.address.balances.listErc20({ chainId: ctx.chainId, address, pageSize: 1, currency: "usd" }, o), "erc20TokenBalances", ctx.erc20BalanceCount > 1 ? 2 : 1);
      const tokens = r.map((b) => b.address.toLowerCase());
      check(tokens.every((t, i) => i === 0 || t > tokens[i - 1]), "by token, no repeats");
      check(r.every((b) => b.ercType === "ERC-20" && BigInt(b.balance) > 0n), "ERC-20 holdings only");
      if (ctx.erc20BalanceCount !== undefined) check(r.length === ctx.erc20BalanceCount, `erc20 balance count ${r.length} != ${ctx.erc20BalanceCount}`);
      if (r.length > 0) {
        calls++;
        const one = await d.evm.address.balances.listErc20({ chainId: ctx.chainId, address, contractAddresses: r[0].address }, o);
        check(one.result.erc20TokenBalances.length === 1 && one.result.erc20TokenBalances[0].balance === r[0].balance, "narrowed to one contract");
      }
    },
    listErc721Balances: async () => {
      const address = ctx.erc721Holder ?? ctx.collector;
      const r = await pages("erc721Balances", () => d.evm.address.balances.listErc721({ chainId: ctx.chainId, address, pageSize: 1 }, o), "erc721TokenBalances", ctx.erc721BalanceCount > 1 ? 2 : 1);
      check(r.every((b) => b.ercType === "ERC-721"), "ERC-721 holdings only");
      if (ctx.erc721BalanceCount !== undefined) check(r.length === ctx.erc721BalanceCount, `erc721 balance count ${r.length} != ${ctx.erc721BalanceCount}`);
    },
    listErc1155Balances: async () => {
      const address = ctx.erc1155Holder ?? ctx.collector;
      const r = await pages("erc1155Balances", () => d.evm.address.balances.listErc1155({ chainId: ctx.chainId, address, pageSize: 1 }, o), "erc1155TokenBalances", ctx.erc1155BalanceCount > 1 ? 2 : 1);
      check(r.every((b) => b.ercType === "ERC-1155" && BigInt(b.balance) > 0n), "ERC-1155 holdings only");
      if (ctx.erc1155BalanceCount !== undefined) check(r.length === ctx.erc1155BalanceCount, `erc1155 balance count ${r.length} != ${ctx.erc1155BalanceCount}`);
    },
  };
  for (const [name, step] of Object.entries(steps)) {
    if (ctx.evm === false && EVM_STEPS.has(name)) {
      skipped.add(name);
      continue;
    }
    try {
      await step();
    } catch (e) {
      failures.push(`${label} ${name}: ${e?.name ?? ""} ${e?.message ?? e}`.slice(0, 2000));
    }
  }
}

await run("chainkit", new Avalanche({ serverURL, enableTelemetry: false, network: "fuji", retryConfig: noRetries }));
await run("avacloud-sdk", new AvaCloudSDK({ serverURL, network: "fuji", retryConfig: noRetries }));
if (skipped.size > 0) console.log(`skipped (evm: false): ${[...skipped].join(", ")}`);
console.log(`sdk suite: ${calls} calls, ${failures.length} failures`);
for (const f of failures) console.log(`FAIL ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
