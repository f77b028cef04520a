// The Data API's X-Chain against the node's avm.* methods:
// - blocks (list, by height, by ID) are avm.getBlockByHeight's: IDs, parents, times, txs;
// - an address's txs are exactly the txs that consumed or produced an X-Chain UTXO it owns,
//   read from every block's txs (outputs, initial states and operations' outputs are numbered
//   in that order); each tx is avm.getTx's: type, block, memo, consumed and emitted UTXOs,
//   imported and exported amounts;
// - assets are avm.getAssetDescription's, and an asset's txs are those that created it or
//   moved a UTXO of it;
// - an address's UTXOs are avm.getBalance's utxoIDs per asset, its balances (unlocked and
//   locked) add up to avm.getAllBalances' with includePartial, its last activity is in the
//   newest block that moved one of its UTXOs, and its chains include the X-Chain.
import { check, pages, sameSet } from "./rpc.mjs";

const X = "/ext/bc/X";
const bare = (a) => a.replace(/^[A-Z]-/, "");

function txType(u) {
  if (u.initialStates) return "CreateAssetTx";
  if (u.operations) return "OperationTx";
  if (u.importedInputs) return "ImportTx";
  if (u.exportedOutputs) return "ExportTx";
  return "BaseTx";
}

// The outputs of an operation, in the AVM's order.
function operationOutputs(op) {
  const o = op.operation;
  if (o.mintOutput && o.transferOutput) return [o.mintOutput, o.transferOutput];
  if (o.mintOutput && o.ownedOutput) return [o.mintOutput, o.ownedOutput];
  if (o.outputs) return o.outputs;
  if (o.output) return [o.output];
  return [];
}

// Every X-Chain tx the node has accepted, in order, with the UTXOs each consumed and produced.
export async function xchainView(node) {
  const height = Number((await node.rpc(X, "avm.getHeight", {})).height);
  const blocks = new Map();
  const txs = new Map(); // tx ID → { tx, type, height, blockId, time, consumed, produced }
  const owners = new Map(); // "txID:index" → { addresses, assetID, amount }
  const touched = new Map(); // address → Set(tx ID)
  const assetTxs = new Map(); // asset ID → Set(tx ID)
  const note = (map, key, txId) => {
    if (!map.has(key)) map.set(key, new Set());
    map.get(key).add(txId);
  };
  for (let h = 0; h <= height; h++) {
    const { block } = await node.rpc(X, "avm.getBlockByHeight", { height: String(h), encoding: "json" });
    blocks.set(h, block);
    for (const tx of block.txs) {
      const u = tx.unsignedTx;
      const type = txType(u);
      const produced = u.outputs.map((o) => ({ assetID: o.assetID, ...o.output }));
      for (const s of u.initialStates ?? []) produced.push(...s.outputs.map((o) => ({ assetID: tx.id, ...o })));
      for (const op of u.operations ?? []) produced.push(...operationOutputs(op).map((o) => ({ assetID: op.assetID, ...o })));
      const consumedKeys = [...u.inputs.map((i) => `${i.txID}:${i.outputIndex}`)];
      for (const op of u.operations ?? []) consumedKeys.push(...op.inputIDs.map((i) => `${i.txID}:${i.outputIndex}`));
      const consumed = consumedKeys.map((k) => ({ key: k, ...owners.get(k) }));
      produced.forEach((o, i) => owners.set(`${tx.id}:${i}`, { addresses: o.addresses.map(bare), assetID: o.assetID, amount: o.amount }));
      for (const c of consumed) {
        for (const a of c.addresses ?? []) note(touched, a, tx.id);
        if (c.assetID) note(assetTxs, c.assetID, tx.id);
      }
      for (const o of produced) {
        for (const a of o.addresses) note(touched, bare(a), tx.id);
        note(assetTxs, o.assetID, tx.id);
      }
      if (type === "CreateAssetTx") note(assetTxs, tx.id, tx.id);
      txs.set(tx.id, { tx, type, height: h, blockId: block.id, time: block.time, consumed, produced });
    }
  }
  return { height, blocks, txs, touched, assetTxs };
}

// `ctx`: { counter, o, node, x }.
export function xchainSteps(d, ctx) {
  const { counter, o, node, x } = ctx;
  const XC = { network: "fuji", blockchainId: "x-chain" };
  // The address with the most txs (genesis holders have the genesis tx besides).
  const [busiest, busiestTxs] = [...x.touched.entries()].sort((a, b) => b[1].size - a[1].size)[0] ?? [];
  const assets = [...x.txs.values()].filter((t) => t.type === "CreateAssetTx").map((t) => t.tx.id);
  const checkTx = (t, what) => {
    const n = x.txs.get(t.txHash);
    check(n, `${what}: ${t.txHash} unknown to the node's blocks`);
    check(t.chainFormat === "linear", `${what}: chainFormat ${t.chainFormat}`);
    check(t.txType === n.type, `${what}: txType ${t.txType} != ${n.type}`);
    check(t.blockHeight === n.height && t.blockHash === n.blockId, `${what}: block ${t.blockHeight} ${t.blockHash} != ${n.height} ${n.blockId}`);
    check(t.timestamp === n.time, `${what}: timestamp ${t.timestamp} != block time ${n.time}`);
    check(t.memo === n.tx.unsignedTx.memo, `${what}: memo ${t.memo} != ${n.tx.unsignedTx.memo}`);
    const own = t.emittedUtxos.filter((e) => e.createdOnChainId === e.consumedOnChainId);
    sameSet(own.map((e) => `${e.creationTxHash}:${e.outputIndex}`), n.produced.map((_, i) => `${n.tx.id}:${i}`), `${what}: emitted X-Chain UTXOs`);
    for (const e of own) {
      const p = n.produced[Number(e.outputIndex)];
      sameSet(e.addresses, p.addresses.map(bare), `${what}: owners of output ${e.outputIndex}`);
      check(e.asset.assetId === p.assetID, `${what}: asset of output ${e.outputIndex}`);
      if (p.amount !== undefined) check(e.asset.amount === String(p.amount), `${what}: amount of output ${e.outputIndex}`);
    }
    const mine = t.consumedUtxos.filter((c) => c.createdOnChainId === c.consumedOnChainId);
    sameSet(mine.map((c) => `${c.creationTxHash}:${c.outputIndex}`), n.consumed.map((c) => c.key), `${what}: consumed X-Chain UTXOs`);
    const u = n.tx.unsignedTx;
    const imported = t.consumedUtxos.filter((c) => c.createdOnChainId !== c.consumedOnChainId);
    sameSet(imported.map((c) => `${c.creationTxHash}:${c.outputIndex}:${c.asset.amount}`), (u.importedInputs ?? []).map((i) => `${i.txID}:${i.outputIndex}:${i.input.amount}`), `${what}: imported UTXOs`);
    const exported = t.emittedUtxos.filter((e) => e.createdOnChainId !== e.consumedOnChainId);
    sameSet(exported.map((e) => `${e.asset.assetId}:${e.asset.amount}:${e.consumedOnChainId}`), (u.exportedOutputs ?? []).map((e) => `${e.assetID}:${e.output.amount}:${u.destinationChain}`), `${what}: exported UTXOs`);
    if (u.sourceChain) check(t.sourceChain === u.sourceChain, `${what}: sourceChain`);
    if (u.destinationChain) check(t.destinationChain === u.destinationChain, `${what}: destinationChain`);
  };
  return {
    "x-chain listLatestPrimaryNetworkBlocks and getBlockById": async () => {
      const blocks = await pages(counter, "x blocks", () => d.primaryNetwork.blocks.listLatest({ ...XC, pageSize: 3 }, o), "blocks", 2, 3);
      check(Number(blocks[0].blockNumber) === x.height, `newest X-Chain block ${blocks[0].blockNumber} != avm.getHeight ${x.height}`);
      for (const b of blocks) {
        const n = x.blocks.get(Number(b.blockNumber));
        check(b.blockHash === n.id && b.parentHash === n.parentID && b.blockTimestamp === n.time, `X-Chain block ${b.blockNumber} (id, parent, time)`);
        check(JSON.stringify(b.transactions) === JSON.stringify(n.txs.map((t) => t.id)) && b.txCount === n.txs.length, `X-Chain block ${b.blockNumber} txs`);
      }
      for (const id of [blocks[1].blockNumber, blocks[1].blockHash]) {
        counter.calls++;
        const r = await d.primaryNetwork.blocks.get({ ...XC, blockId: id }, o);
        check(r.blockHash === blocks[1].blockHash, `X-Chain block by ${id}`);
      }
    },
    "x-chain listLatestPrimaryNetworkTransactions": async () => {
      check(busiest, "the history has X-Chain txs");
      const txs = await pages(counter, "x txs", () => d.primaryNetwork.transactions.listLatest({ ...XC, addresses: busiest, pageSize: 4 }, o), "transactions", 2);
      // The genesis CreateAssetTx is in no block: the node's blocks cannot list it.
      const inBlocks = txs.filter((t) => x.txs.has(t.txHash));
      check(txs.length - inBlocks.length <= 1, `${busiest}: only the genesis tx may be outside the blocks`);
      sameSet(inBlocks.map((t) => t.txHash), [...busiestTxs], `X-Chain txs of ${busiest}`);
      for (const t of inBlocks.slice(0, 12)) checkTx(t, `X-Chain tx ${t.txHash} of ${busiest}`);
    },
    "x-chain getTxByHash": async () => {
      const seen = new Set();
      for (const n of x.txs.values()) {
        if (seen.has(n.type)) continue;
        seen.add(n.type);
        counter.calls++;
        const t = await d.primaryNetwork.transactions.get({ ...XC, txHash: n.tx.id }, o);
        checkTx(t, `X-Chain ${n.type} ${n.tx.id}`);
        const { tx } = await node.rpc(X, "avm.getTx", { txID: n.tx.id, encoding: "json" });
        check(tx.id === t.txHash, `avm.getTx ${n.tx.id}`);
      }
      check(seen.size >= 4, `the history has X-Chain txs of at least 4 types (${[...seen]})`);
    },
    "x-chain getAssetDetails and listAssetTransactions": async () => {
      check(assets.length >= 2, `the history creates at least 2 X-Chain assets (${assets.length})`);
      for (const id of assets) {
        counter.calls++;
        const a = await d.primaryNetwork.getAssetDetails({ ...XC, assetId: id }, o);
        const n = await node.rpc(X, "avm.getAssetDescription", { assetID: id });
        check(a.name === n.name && a.symbol === n.symbol && a.denomination === Number(n.denomination), `asset ${id}: ${a.name}/${a.symbol}/${a.denomination} != ${n.name}/${n.symbol}/${n.denomination}`);
        check(a.createdAtTimestamp === x.txs.get(id).time, `asset ${id} creation time`);
      }
      const [asset] = assets.sort((a, b) => x.assetTxs.get(b).size - x.assetTxs.get(a).size);
      const txs = await pages(counter, "asset txs", () => d.primaryNetwork.transactions.listAssetTransactions({ ...XC, assetId: asset, pageSize: 2 }, o), "transactions", 2);
      sameSet(txs.map((t) => t.txHash), [...x.assetTxs.get(asset)], `txs of asset ${asset}`);
    },
    "x-chain getLastActivityTimestampByAddresses and getChainIdsForAddresses": async () => {
      // Only chainkit has the last activity.
      if (d.primaryNetwork.utxos.getLastActivityTimestampByAddresses) {
        counter.calls++;
        const a = await d.primaryNetwork.utxos.getLastActivityTimestampByAddresses({ ...XC, addresses: busiest }, o);
        const newest = Math.max(...[...busiestTxs].map((id) => x.txs.get(id).height));
        check(a.chainName === "x-chain" && Number(a.blockNumber) === newest && busiestTxs.has(a.txHash), `last X-Chain activity of ${busiest}: block ${a.blockNumber} tx ${a.txHash}, newest ${newest}`);
      }
      counter.calls++;
      const r = await d.primaryNetwork.getChainIdsForAddresses({ network: "fuji", addresses: busiest }, o);
      const xChainId = x.blocks.get(1)?.txs[0]?.unsignedTx.blockchainID;
      check(r.addresses[0].blockchainIds.includes(xChainId), `the X-Chain (${xChainId}) among the chains of ${busiest}: ${r.addresses[0].blockchainIds}`);
    },
    "x-chain getUtxosByAddresses and getBalancesByAddresses": async () => {
      // includePartial: every fungible output naming the address, locked or shared.
      const { balances } = await node.rpc(X, "avm.getAllBalances", { address: `X-${busiest}`, includePartial: true });
      const utxos = await pages(counter, "x utxos", () => d.primaryNetwork.utxos.listByAddresses({ ...XC, addresses: busiest, pageSize: 3 }, o), "utxos", 2);
      counter.calls++;
      const r = await d.primaryNetwork.balances.listByAddresses({ ...XC, addresses: busiest }, o);
      const total = new Map();
      for (const b of [...r.balances.unlocked, ...r.balances.locked]) total.set(b.assetId, (total.get(b.assetId) ?? 0n) + BigInt(b.amount));
      const avax = [...r.balances.unlocked, ...r.balances.locked].find((b) => b.symbol === "AVAX")?.assetId;
      check(balances.length === total.size, `X-Chain assets held by ${busiest}: ${total.size} != avm.getAllBalances ${balances.length}`);
      for (const { asset, balance } of balances) {
        const id = asset === "AVAX" ? avax : asset;
        check(total.get(id) === BigInt(balance), `X-Chain ${asset} balance of ${busiest}: ${total.get(id)} != avm.getAllBalances ${balance}`);
        const n = await node.rpc(X, "avm.getBalance", { address: `X-${busiest}`, assetID: id, includePartial: true });
        const got = utxos.filter((u) => u.asset.assetId === id && u.utxoType === "transfer");
        sameSet(got.map((u) => `${u.creationTxHash}:${u.outputIndex}`), n.utxoIDs.map((i) => `${i.txID}:${i.outputIndex}`), `X-Chain UTXOs of ${busiest} in ${asset} (avm.getBalance utxoIDs)`);
      }
    },
  };
}
