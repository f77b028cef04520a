// The node's P-Chain, read once through its RPC, in the form the Data API comparisons need:
// every block, what each tx touches, the stakers it added and how each one ended.

import { bech32Hex, decodeUtxo } from "./rpc.mjs";

// A block's txs: standard blocks list `txs`; Banff proposal blocks list their `txs` and then
// hold the proposal's own `tx` (AvalancheGo's `BanffProposalBlock.Txs()` order).
export const txsOf = (block) => [...(block.txs ?? []), ...(block.tx ? [block.tx] : [])];
export const txIdsOf = (block) => txsOf(block).map((t) => t.id);

// The output's owner addresses, stakeable-locked or not, as the hex of their 20 bytes.
const ownersOf = (out) => (out.output?.addresses ?? out.output?.output?.addresses ?? []).map(bech32Hex);
const amountOf = (out) => BigInt(out.output?.amount ?? out.output?.output?.amount ?? 0);

// A staking tx's kind: validators name `shares`, delegators do not; subnet validators stake
// nothing and are not primary-network stakers.
function stakingKind(u) {
  if (!u.validator || !u.stake) return null;
  return u.shares !== undefined ? "validator" : "delegator";
}

// Every block, tx and staker up to the node's current height.
export async function pchainView(node) {
  const height = await node.pHeight();
  const blocks = new Map();
  const outputs = new Map(); // `${txId}:${index}` → owner hexes
  const touched = new Map(); // address hex → Set of tx IDs
  const stakers = new Map(); // staking tx ID → { kind, nodeID, weight, start, end, owners, tx, height }
  const ended = new Map(); // staking tx ID → { rewardTxId, height }
  // address hex → its newest UTXO event in the blocks: { height, txId, consumed } (in one
  // block the outputs come after the spending).
  const lastUtxoEvent = new Map();
  const touch = (address, txId) => {
    if (!touched.has(address)) touched.set(address, new Set());
    touched.get(address).add(txId);
  };
  const event = (address, height, txId, consumed) => {
    const e = lastUtxoEvent.get(address);
    if (!e || height > e.height || (height === e.height && e.consumed && !consumed)) lastUtxoEvent.set(address, { height, txId, consumed });
  };
  for (let h = 0; h <= height; h++) {
    const { block } = await node.platform("getBlockByHeight", { height: String(h), encoding: "json" });
    blocks.set(h, block);
    for (const tx of txsOf(block)) {
      const u = tx.unsignedTx;
      const outs = [...(u.outputs ?? []), ...(u.stake ?? [])];
      outs.forEach((out, i) => {
        const owners = ownersOf(out);
        outputs.set(`${tx.id}:${i}`, owners);
        for (const a of owners) touch(a, tx.id);
      });
      for (const input of [...(u.inputs ?? []), ...(u.importedInputs ?? [])]) {
        for (const a of outputs.get(`${input.txID}:${input.outputIndex}`) ?? []) {
          touch(a, tx.id);
          event(a, h, tx.id, true);
        }
      }
      for (const out of outs) for (const a of ownersOf(out)) event(a, h, tx.id, false);
      const kind = stakingKind(u);
      if (kind) {
        const owner = u.rewardsOwner ?? u.validationRewardsOwner;
        const owners = [owner, u.delegationRewardsOwner].filter(Boolean).flatMap((o) => o.addresses.map(bech32Hex));
        for (const a of owners) touch(a, tx.id);
        stakers.set(tx.id, {
          kind,
          nodeID: u.validator.nodeID,
          subnetID: u.subnetID ?? "11111111111111111111111111111111LpoYY",
          weight: (u.stake ?? []).reduce((s, o) => s + amountOf(o), 0n),
          start: Math.max(Number(u.validator.start), Number(block.time)),
          end: Number(u.validator.end),
          rewardOwners: (u.rewardsOwner ?? u.validationRewardsOwner).addresses.map((a) => a.replace(/^P-/, "")),
          shares: u.shares,
          height: h,
        });
      }
      if (Object.keys(u).length === 1 && u.txID) {
        // RewardValidatorTx: `{ txID }`.
        ended.set(u.txID, { rewardTxId: tx.id, height: h });
      }
    }
  }
  return { height, blocks, touched, stakers, ended, lastUtxoEvent };
}

// The node's current primary-network validators and delegators, by staking tx.
export async function currentStakers(node) {
  const { validators } = await node.platform("getCurrentValidators");
  const byTx = new Map();
  for (const { nodeID } of validators) {
    // Delegators come only when exactly one node is named.
    const [v] = (await node.platform("getCurrentValidators", { nodeIDs: [nodeID] })).validators;
    byTx.set(v.txID, { ...v, kind: "validator" });
    for (const d of v.delegators ?? []) byTx.set(d.txID, { ...d, kind: "delegator", validator: v });
  }
  return byTx;
}

// A delegator's potential reward split as AvalancheGo splits it: the validator keeps `shares`
// millionths (rounded in its favour), the delegator the rest.
export function splitReward(total, sharesMillionths) {
  const delegator = (total * (1_000_000n - BigInt(sharesMillionths))) / 1_000_000n;
  return { delegator, fee: total - delegator };
}

// The reward UTXOs the node minted for the staking tx `txId`.
export async function rewardUtxos(node, txId) {
  const { utxos } = await node.platform("getRewardUTXOs", { txID: txId, encoding: "hex" });
  return utxos.map(decodeUtxo).filter(Boolean);
}

