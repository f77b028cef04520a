// An EVM chain as its node's eth_* RPC tells it, in the form the Data API comparisons need:
// blocks, deployments, token transfers decoded from logs, who holds which collectible, and
// token metadata read by eth_call.

import { SELECTORS, TOPICS, abiString, abiWord, addressWord, hexNumber, topicAddress, wordOf } from "./rpc.mjs";

export const ZERO = "0x0000000000000000000000000000000000000000";

export async function evmView(node, chainPath) {
  const head = Number(await node.eth(chainPath, "eth_blockNumber"));
  const chainId = String(Number(await node.eth(chainPath, "eth_chainId")));
  const blocks = new Map();
  const deployments = new Map(); // contract → { txHash, blockNumber, from }
  const txs = []; // { txHash, blockNumber, index, from, to, status }, oldest first, from receipts
  for (let n = 0; n <= head; n++) {
    const block = await node.eth(chainPath, "eth_getBlockByNumber", [hexNumber(n), false]);
    blocks.set(n, block);
    if (block.transactions.length === 0) continue;
    for (const r of await node.eth(chainPath, "eth_getBlockReceipts", [hexNumber(n)])) {
      const to = (r.to ?? r.contractAddress).toLowerCase();
      txs.push({ txHash: r.transactionHash, blockNumber: n, index: Number(r.transactionIndex), from: r.from.toLowerCase(), to, status: r.status === "0x1" ? "1" : "0" });
      if (r.contractAddress) deployments.set(r.contractAddress.toLowerCase(), { txHash: r.transactionHash, blockNumber: n, from: r.from.toLowerCase() });
    }
  }
  const logs = await node.eth(chainPath, "eth_getLogs", [
    { fromBlock: "0x0", toBlock: hexNumber(head), topics: [[TOPICS.transfer, TOPICS.transferSingle, TOPICS.transferBatch]] },
  ]);
  const erc20 = []; // { key, contract, from, to, value, txHash, logIndex, blockNumber }
  const erc721 = [];
  const erc1155 = []; // one entry per id of a batch
  const owners721 = new Map(); // `${contract}:${id}` → owner
  const balances1155 = new Map(); // `${contract}:${id}:${owner}` → balance
  for (const log of logs) {
    const contract = log.address.toLowerCase();
    const t = log.topics;
    const base = { contract, txHash: log.transactionHash, logIndex: Number(log.logIndex), blockNumber: Number(log.blockNumber) };
    if (t[0] === TOPICS.transfer && t.length === 3) {
      erc20.push({ ...base, from: topicAddress(t[1]), to: topicAddress(t[2]), value: abiWord(log.data) });
    } else if (t[0] === TOPICS.transfer && t.length === 4) {
      const id = BigInt(t[3]);
      erc721.push({ ...base, from: topicAddress(t[1]), to: topicAddress(t[2]), tokenId: id });
      owners721.set(`${contract}:${id}`, topicAddress(t[2]));
    } else if (t[0] === TOPICS.transferSingle || t[0] === TOPICS.transferBatch) {
      const [from, to] = [topicAddress(t[2]), topicAddress(t[3])];
      const data = Buffer.from(log.data.slice(2), "hex");
      const word = (i) => BigInt(`0x${data.subarray(i * 32, i * 32 + 32).toString("hex")}`);
      let moves;
      if (t[0] === TOPICS.transferSingle) {
        moves = [[word(0), word(1)]];
      } else {
        const ids = Number(word(0)) / 32;
        const values = Number(word(1)) / 32;
        moves = Array.from({ length: Number(word(ids)) }, (_, i) => [word(ids + 1 + i), word(values + 1 + i)]);
      }
      for (const [id, value] of moves) {
        erc1155.push({ ...base, from, to, tokenId: id, value });
        const add = (owner, delta) => {
          const key = `${contract}:${id}:${owner}`;
          balances1155.set(key, (balances1155.get(key) ?? 0n) + delta);
        };
        add(from, -value);
        add(to, value);
      }
    }
  }
  const holdings = new Map(); // owner → Map(`${contract}:${id}` → { ercType, balance })
  const hold = (owner, key, value) => {
    if (owner === ZERO) return;
    if (!holdings.has(owner)) holdings.set(owner, new Map());
    holdings.get(owner).set(key, value);
  };
  for (const [key, owner] of owners721) hold(owner, key, { ercType: "ERC-721", balance: 1n });
  for (const [key, balance] of balances1155) {
    if (balance <= 0n) continue;
    const [contract, id, owner] = key.split(":");
    hold(owner, `${contract}:${id}`, { ercType: "ERC-1155", balance });
  }
  // Calls below each transaction's own (callTracer), those an address's lists show: CALL and
  // CALLCODE with value, CREATE and CREATE2; and contracts made by a call that did not revert.
  const moves = []; // { txHash, blockNumber, index, from, to, type, value, reverted }
  const created = []; // { txHash, contract, from }
  for (const t of txs) {
    const trace = await node.eth(chainPath, "debug_traceTransaction", [t.txHash, { tracer: "callTracer" }]);
    const walk = (frame, reverted) => {
      for (const f of frame.calls ?? []) {
        const type = f.type.toUpperCase();
        const value = BigInt(f.value ?? "0x0");
        const failed = reverted || f.error !== undefined;
        const creates = type === "CREATE" || type === "CREATE2";
        if (creates || ((type === "CALL" || type === "CALLCODE") && value > 0n)) {
          moves.push({ txHash: t.txHash, blockNumber: t.blockNumber, index: t.index, from: f.from.toLowerCase(), to: (f.to ?? ZERO).toLowerCase(), type, value, reverted: failed });
        }
        if (creates && !failed && t.status === "1" && f.to) created.push({ txHash: t.txHash, contract: f.to.toLowerCase(), from: f.from.toLowerCase() });
        walk(f, failed);
      }
    };
    walk(trace, false);
  }
  return { chainPath, chainId, head, blocks, deployments, txs, erc20, erc721, erc1155, holdings, moves, created };
}

// The address with the most entries in `list` (by `from` and `to`), ties broken by address.
export function busiest(list) {
  const counts = new Map();
  for (const e of list) for (const a of new Set([e.from, e.to])) if (a !== ZERO) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

// ERC-20 name, symbol and decimals by eth_call.
export async function erc20Metadata(node, chainPath, contract) {
  return {
    name: abiString(await node.call(chainPath, contract, SELECTORS.name)),
    symbol: abiString(await node.call(chainPath, contract, SELECTORS.symbol)),
    decimals: Number(abiWord(await node.call(chainPath, contract, SELECTORS.decimals))),
  };
}

// A collectible's token URI by eth_call: `tokenURI(id)` (ERC-721) or `uri(id)` (ERC-1155).
export async function tokenUri(node, chainPath, contract, id, ercType) {
  const selector = ercType === "ERC-721" ? SELECTORS.tokenURI : SELECTORS.uri;
  return abiString(await node.call(chainPath, contract, `${selector}${wordOf(id)}`));
}

// An ERC-1155 balance by eth_call.
export async function balance1155(node, chainPath, contract, owner, id) {
  return abiWord(await node.call(chainPath, contract, `${SELECTORS.balanceOf1155}${addressWord(owner)}${wordOf(id)}`));
}

// An ERC-20 balance by eth_call, at `block` (a hex quantity) or the latest.
export async function balance20(node, chainPath, contract, owner, block = "latest") {
  return abiWord(await node.call(chainPath, contract, `${SELECTORS.balanceOf}${addressWord(owner)}`, block));
}

// An ERC-721 token's owner by eth_call.
export async function ownerOf(node, chainPath, contract, id) {
  return topicAddress(await node.call(chainPath, contract, `${SELECTORS.ownerOf}${wordOf(id)}`));
}
