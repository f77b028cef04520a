// The Data API against the node it indexed: `firn up` generates history, its indexer follows the
// devnet's node RPC into the store, and this script reads the Data API through both official
// SDKs (response validation on) and checks each answer against the node's own JSON-RPC
// (platform.getHeight / getBlockByHeight / getTx / getCurrentValidators / getBlockchains).
// Every paged list is followed for at least two pages. Not compared yet: UTXO sets against
// getUTXOs/getBalance, staking txs, delegators and rewards against the node's staker views
// (the first attempt disagreed in ways not yet explained; see the branch's report).
// Any failed check or SDK error fails the run (exit code 1).
//
// Env: FIRN_API_URL (Data API base URL), FIRN_NODE_URL (node RPC base URL).
import { Avalanche } from "@avalanche-sdk/chainkit";
import { AvaCloudSDK } from "@avalabs/avacloud-sdk";

const serverURL = process.env.FIRN_API_URL;
const nodeURL = process.env.FIRN_NODE_URL;
const failures = [];
const o = { serverURL };
const noRetries = { strategy: "none" };
let calls = 0;
let rpcCalls = 0;

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

async function rpc(path, method, params) {
  rpcCalls++;
  const r = await fetch(`${nodeURL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}
const platform = (method, params = {}) => rpc("/ext/bc/P", `platform.${method}`, params);

// Collects every item of a paged call (up to `maxPages`); asserts at least `minPages` pages.
async function pages(name, start, field, minPages, maxPages = Infinity) {
  const items = [];
  let count = 0;
  for await (const page of await start()) {
    calls++;
    count++;
    items.push(...page.result[field]);
    if (count >= maxPages) break;
  }
  check(count >= minPages, `${name}: ${count} pages, expected at least ${minPages}`);
  return items;
}

// The node's view, read once: height, every block, the addresses they touch.
async function nodeView() {
  const height = Number((await platform("getHeight")).height);
  const blocks = new Map();
  const addressTxs = new Map();
  for (let h = 1; h <= height; h++) {
    const { block } = await platform("getBlockByHeight", { height: String(h), encoding: "json" });
    blocks.set(h, block);
    for (const tx of txsOf(block)) {
      for (const out of tx.unsignedTx?.outputs ?? []) {
        for (const a of out.output?.addresses ?? out.output?.output?.addresses ?? []) {
          const bare = a.replace(/^P-/, "");
          if (!addressTxs.has(bare)) addressTxs.set(bare, new Set());
          addressTxs.get(bare).add(tx.id);
        }
      }
    }
  }
  return { height, blocks, addressTxs };
}

// Current validators with their delegators (AvalancheGo lists delegators only for named nodes).
async function currentValidators() {
  const { validators } = await platform("getCurrentValidators");
  return (await platform("getCurrentValidators", { nodeIDs: validators.map((v) => v.nodeID) })).validators;
}

// A block's txs: standard blocks list `txs`, proposal blocks hold one `tx`.
function txsOf(block) {
  return block.txs ?? (block.tx ? [block.tx] : []);
}

function txIdsOf(block) {
  return txsOf(block).map((t) => t.id);
}

async function run(label, sdk, node) {
  const d = sdk.data;
  const net = { network: "fuji" };
  const P = { ...net, blockchainId: "p-chain" };
  // The busiest address: enough txs for several pages.
  const [address] = [...node.addressTxs.entries()].sort((a, b) => b[1].size - a[1].size)[0];
  const steps = {
    listLatestPrimaryNetworkBlocks: async () => {
      const blocks = await pages("blocks", () => d.primaryNetwork.blocks.listLatest({ ...P, pageSize: 7 }, o), "blocks", 2, 4);
      check(Number(blocks[0].blockNumber) === node.height, `newest block ${blocks[0].blockNumber} != getHeight ${node.height}`);
      for (const b of blocks) {
        const n = node.blocks.get(Number(b.blockNumber));
        check(n, `block ${b.blockNumber} unknown to the node`);
        check(b.blockHash === n.id, `block ${b.blockNumber} hash ${b.blockHash} != ${n.id}`);
        check(b.parentHash === n.parentID, `block ${b.blockNumber} parent`);
        check(b.blockTimestamp === n.time, `block ${b.blockNumber} time ${b.blockTimestamp} != ${n.time}`);
        check(b.txCount === txIdsOf(n).length, `block ${b.blockNumber} txCount ${b.txCount} != ${txIdsOf(n).length}`);
        check(JSON.stringify(b.transactions) === JSON.stringify(txIdsOf(n)), `block ${b.blockNumber} tx list`);
      }
      const numbers = blocks.map((b) => Number(b.blockNumber));
      check(numbers.every((n, i) => i === 0 || n === numbers[i - 1] - 1), "consecutive heights across pages");
    },
    listPrimaryNetworkBlocksByNodeId: async () => {
      const first = await d.primaryNetwork.blocks.listLatest({ ...P, pageSize: 1 }, o);
      calls++;
      const nodeId = first.result.blocks[0].proposerDetails?.proposerNodeId;
      if (!nodeId) {
        // The devnet's blocks carry no proposer wrapper: no node has proposed any block.
        const [v] = await currentValidators();
        calls++;
        const r = await d.primaryNetwork.blocks.listByNodeId({ ...P, nodeId: v.nodeID, pageSize: 2 }, o);
        check(r.result.blocks.length === 0, `blocks listed for proposer ${v.nodeID}, but the node's blocks name none`);
        return;
      }
      const blocks = await pages("byNode", () => d.primaryNetwork.blocks.listByNodeId({ ...P, nodeId, pageSize: 2 }, o), "blocks", 2, 3);
      for (const b of blocks) {
        check(b.proposerDetails.proposerNodeId === nodeId, "proposer");
        check(b.blockHash === node.blocks.get(Number(b.blockNumber))?.id, `block ${b.blockNumber} hash`);
      }
    },
    listLatestPrimaryNetworkTransactions: async () => {
      const expected = node.addressTxs.get(address);
      const txs = await pages("txs", () => d.primaryNetwork.transactions.listLatest({ ...P, addresses: address, pageSize: 5 }, o), "transactions", 2);
      const seen = new Set(txs.map((t) => t.txHash));
      check(seen.size === txs.length, "no duplicate txs across pages");
      for (const id of expected) check(seen.has(id), `tx ${id} (an output to ${address} on the node) missing`);
      for (const t of txs.slice(0, 12)) {
        const block = node.blocks.get(Number(t.blockNumber));
        check(block && txIdsOf(block).includes(t.txHash), `tx ${t.txHash} not in node block ${t.blockNumber}`);
        check(t.blockHash === block.id, `tx ${t.txHash} block hash`);
        check(t.blockTimestamp === block.time, `tx ${t.txHash} timestamp`);
        const { tx } = await platform("getTx", { txID: t.txHash, encoding: "json" });
        const outs = tx.unsignedTx.outputs ?? [];
        const mine = t.emittedUtxos.filter((u) => u.txHash === t.txHash && !u.staked).map((u) => `${u.outputIndex}:${u.amount}`).sort();
        const theirs = outs.map((out, i) => `${i}:${out.output.amount ?? out.output.output?.amount}`).sort();
        check(JSON.stringify(mine) === JSON.stringify(theirs), `tx ${t.txHash} outputs ${mine} != node ${theirs}`);
        check(t.consumedUtxos.length === (tx.unsignedTx.inputs ?? []).length + (tx.unsignedTx.importedInputs ?? []).length, `tx ${t.txHash} inputs`);
      }
    },
    getBlockchainById: async () => {
      // Chains created by a tx (the genesis chains have no creating tx to index).
      const created = new Set([...node.blocks.values()].flatMap(txIdsOf));
      const blockchains = (await platform("getBlockchains")).blockchains.filter((c) => created.has(c.id));
      check(blockchains.length > 0, "the history creates a blockchain");
      for (const c of blockchains) {
        calls++;
        const r = await d.primaryNetwork.getBlockchainById({ ...net, blockchainId: c.id }, o);
        check(r.blockchainName === c.name, `blockchain ${c.id} name ${r.blockchainName} != ${c.name}`);
        check(r.subnetId === c.subnetID, `blockchain ${c.id} subnet`);
        check(r.vmId === c.vmID, `blockchain ${c.id} vm`);
      }
    },
    getChainIdsForAddresses: async () => {
      calls++;
      const r = await d.primaryNetwork.getChainIdsForAddresses({ ...net, addresses: address }, o);
      check(r.addresses[0].blockchainIds.includes("11111111111111111111111111111111LpoYY"), "the P-Chain listed");
    },
  };
  for (const [name, step] of Object.entries(steps)) {
    try {
      await step();
    } catch (e) {
      failures.push(`${label} ${name}: ${e?.name ?? ""} ${e?.message ?? e}`.slice(0, 2000));
    }
  }
}

const node = await nodeView();
console.log(`node: height ${node.height}, ${node.addressTxs.size} addresses with outputs`);
await run("chainkit", new Avalanche({ serverURL, enableTelemetry: false, network: "fuji", retryConfig: noRetries }), node);
await run("avacloud-sdk", new AvaCloudSDK({ serverURL, network: "fuji", retryConfig: noRetries }), node);
console.log("EVM endpoints: not compared with eth_* here — `firn up` indexes no EVM chain yet (suite.mjs covers them against the store)");
console.log(`node suite: ${calls} calls, ${rpcCalls} node RPC calls, ${failures.length} failures`);
for (const f of failures) console.log(`FAIL ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
