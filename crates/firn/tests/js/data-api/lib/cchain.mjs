// The Data API's C-Chain atomic txs against the node's avax.* methods and C-Chain blocks:
// - the txs listed are exactly those the C-Chain's blocks carry: avax.getAtomicTx's bytes, at
//   the height it names, make up each block's blockExtraData (coreth's list: codec version, a
//   count, then each tx without its own version);
// - each tx's shape is its kind's (ImportTx from the P- or X-Chain, ExportTx to one), and by
//   hash it is the same;
// - the primary-network C-Chain blocks list the same txs per block;
// - the UTXOs an import took show as spent by it among its owner's C-Chain UTXOs, and the
//   owner's C-Chain balances are what avax.getUTXOs lists for it.
import { check, pages, sameSet } from "./rpc.mjs";

const AVAX_API = "/ext/bc/C/avax";

// The signed bytes (hex, no version) of a tx `avax.getAtomicTx` answers with.
function body(hexWithChecksum) {
  const hex = hexWithChecksum.replace(/^0x/, "");
  return hex.slice(4, hex.length - 8);
}

// `ctx`: { counter, o, node, c } with `c` the C-Chain's evmView.
export function cchainSteps(d, ctx) {
  const { counter, o, node, c } = ctx;
  const CC = { network: "fuji", blockchainId: "c-chain" };
  const carrying = [...c.blocks.entries()].filter(([, b]) => (b.blockExtraData ?? "0x") !== "0x");
  let listed = [];
  const list = async () => {
    if (listed.length === 0) {
      listed = await pages(counter, "c txs", () => d.primaryNetwork.transactions.listLatest({ ...CC, pageSize: 5 }, o), "transactions", 1);
    }
    return listed;
  };
  return {
    "c-chain listLatestPrimaryNetworkTransactions": async () => {
      check(carrying.length > 0, "the history has C-Chain atomic txs");
      const txs = await list();
      const byHeight = new Map();
      for (const t of txs) {
        const r = await node.rpc(AVAX_API, "avax.getAtomicTx", { txID: t.txHash, encoding: "hex" });
        check(Number(r.blockHeight) === t.blockHeight, `${t.txHash}: height ${t.blockHeight} != ${r.blockHeight}`);
        if (!byHeight.has(t.blockHeight)) byHeight.set(t.blockHeight, []);
        byHeight.get(t.blockHeight).push(body(r.tx));
        const b = c.blocks.get(t.blockHeight);
        check(t.blockHash === b.hash && t.timestamp === Number(b.timestamp), `${t.txHash}: block ${t.blockHash} at ${t.timestamp}`);
        const [peer, here] = t.txType === "ImportTx" ? [t.sourceChain, t.destinationChain] : [t.destinationChain, t.sourceChain];
        check(t.txType === "ImportTx" ? t.evmOutputs.length > 0 && t.consumedUtxos.length > 0 : t.evmInputs.length > 0 && t.emittedUtxos.length > 0, `${t.txHash}: ${t.txType} parts`);
        check(peer !== here, `${t.txHash}: chains ${peer} ${here}`);
      }
      sameSet([...byHeight.keys()].map(String), carrying.map(([n]) => String(n)), "heights carrying atomic txs");
      for (const [n, b] of carrying) {
        // Newest first in the list; oldest first in a block.
        const bodies = byHeight.get(n).slice().reverse();
        const count = bodies.length.toString(16).padStart(8, "0");
        check(b.blockExtraData.toLowerCase() === `0x0000${count}${bodies.join("")}`, `block ${n}'s extra data is its listed txs`);
      }
    },
    "c-chain getTxByHash": async () => {
      const txs = await list();
      for (const kind of ["ImportTx", "ExportTx"]) {
        const t = txs.find((x) => x.txType === kind);
        check(t, `the history has a C-Chain ${kind}`);
        counter.calls++;
        const got = await d.primaryNetwork.transactions.get({ ...CC, txHash: t.txHash }, o);
        check(JSON.stringify(got) === JSON.stringify(t), `${kind} ${t.txHash} by hash`);
      }
    },
    "c-chain listLatestPrimaryNetworkBlocks and getBlockById": async () => {
      const txs = await list();
      const blocks = await pages(counter, "c blocks", () => d.primaryNetwork.blocks.listLatest({ ...CC, pageSize: 20 }, o), "blocks", 1, 3);
      check(Number(blocks[0].blockNumber) === c.head, `newest C-Chain block ${blocks[0].blockNumber} != ${c.head}`);
      for (const b of blocks) {
        const n = c.blocks.get(Number(b.blockNumber));
        check(b.blockHash === n.hash && b.parentHash === n.parentHash && b.blockTimestamp === Number(n.timestamp), `C-Chain block ${b.blockNumber}`);
        const want = txs.filter((t) => t.blockHeight === Number(b.blockNumber)).map((t) => t.txHash).reverse();
        check(JSON.stringify(b.transactions) === JSON.stringify(want) && b.txCount === want.length, `C-Chain block ${b.blockNumber} txs`);
      }
      const [height] = carrying[carrying.length - 1];
      for (const id of [String(height), c.blocks.get(height).hash]) {
        counter.calls++;
        const r = await d.primaryNetwork.blocks.get({ ...CC, blockId: id }, o);
        check(r.blockNumber === String(height) && r.txCount > 0, `C-Chain block by ${id}`);
      }
    },
    "c-chain getUtxosByAddresses and getBalancesByAddresses": async () => {
      const txs = await list();
      const imp = txs.find((t) => t.txType === "ImportTx");
      check(imp, "the history has a C-Chain ImportTx");
      const owner = imp.consumedUtxos[0].addresses[0];
      const utxos = await pages(counter, "c utxos", () => d.primaryNetwork.utxos.listByAddresses({ ...CC, addresses: owner, includeSpent: true, pageSize: 10 }, o), "utxos", 1);
      for (const u of imp.consumedUtxos.filter((x) => x.addresses.includes(owner))) {
        const found = utxos.find((x) => x.utxoId === u.utxoId);
        check(found && found.consumingTxHash === imp.txHash, `${owner}: ${u.utxoId} spent by ${imp.txHash}`);
      }
      const waiting = new Map(); // source → nAVAX
      for (const source of ["P", "X"]) {
        const r = await node.rpc(AVAX_API, "avax.getUTXOs", { addresses: [`C-${owner}`], sourceChain: source, encoding: "hex" });
        if (r.utxos.length > 0) waiting.set(source, r.utxos.length);
      }
      counter.calls++;
      const { balances } = await d.primaryNetwork.balances.listByAddresses({ ...CC, addresses: owner }, o);
      const held = balances.atomicMemoryUnlocked.reduce((n, b) => n + b.utxoCount, 0);
      const want = [...waiting.values()].reduce((n, k) => n + k, 0);
      check(held === want, `${owner}: ${held} UTXOs in the C-Chain's atomic memory, avax.getUTXOs lists ${want}`);
    },
  };
}
