// The Data API against the node it indexed: `firn up` generates history, its indexer follows the
// devnet's node RPC into the store, and this script reads every Data API endpoint through both
// official SDKs (response validation on) and checks each answer against the node's own JSON-RPC:
// - P-Chain (platform.*): blocks, blocks by proposer, an address's txs (exactly the txs whose
//   outputs, inputs or reward owners name it), active staking txs against getCurrentValidators,
//   delegators (active: getCurrentValidators' potential reward split by the validator's fee;
//   completed: getRewardUTXOs and the RewardValidatorTx), historical rewards against
//   getRewardUTXOs, validators (active: getCurrentValidators' uptime, connection, delegations,
//   potential rewards and capacity; completed: getRewardUTXOs), pending rewards, the network's
//   staking totals (getCurrentValidators, getCurrentSupply), blockchains
//   against getBlockchains and their CreateChainTx; an address's UTXOs, balances and last
//   activity against getBalance, getStake and the blocks (lib/utxos.mjs); L1 validators with
//   their remaining balances and owners against getCurrentValidators and getL1Validator
//   (lib/l1.mjs); ICM messages against the messenger's logs on every EVM chain, both sides,
//   execution, retries and receipts (lib/icm.mjs); the AVAX supply against getCurrentSupply, getRewardUTXOs and
//   getCurrentValidators (lib/supply.mjs);
// - the X-Chain (avm.*): blocks, an address's txs, txs by hash, assets and their txs, UTXOs
//   and balances (lib/xchain.mjs);
// - the C-Chain's atomic txs (avax.*, blockExtraData): txs, blocks, UTXOs and balances
//   (lib/cchain.mjs);
// - every EVM chain (eth_*): blocks by number and hash, contract deployments, an address's
//   ERC-20 and ERC-721 transfers against eth_getLogs, token metadata against eth_call,
//   collectible holdings (ERC-721 owners, ERC-1155 balances) computed from the logs and checked
//   with ownerOf and balanceOf, and ERC-20 balances against balanceOf.
// Every paged list is followed for at least two pages. The node is read once before the SDK
// calls and its heights again after: a chain that moved in between (a reward block on the
// wall clock) makes the run start again, at most three times.
// Any failed check or SDK error fails the run (exit code 1).
//
// Env: FIRN_API_URL (Data API base URL), FIRN_NODE_URL (node RPC base URL).
import { Avalanche } from "@avalanche-sdk/chainkit";
import { AvaCloudSDK } from "@avalabs/avacloud-sdk";

import { ZERO, balance20, balance1155, busiest, erc20Metadata, evmView, ownerOf, tokenUri } from "./lib/evm.mjs";
import { currentStakers, pchainView, rewardUtxos, splitReward, txIdsOf, txsOf } from "./lib/pchain.mjs";
import { icmSteps } from "./lib/icm.mjs";
import { l1Steps } from "./lib/l1.mjs";
import { supplySteps } from "./lib/supply.mjs";
import { utxoSteps } from "./lib/utxos.mjs";
import { cchainSteps } from "./lib/cchain.mjs";
import { xchainSteps, xchainView } from "./lib/xchain.mjs";
import { Node, bech32Hex, check, checksummed, functionSelector, hexNumber, pages, sameSet } from "./lib/rpc.mjs";

const serverURL = process.env.FIRN_API_URL;
const node = new Node(process.env.FIRN_NODE_URL);
const o = { serverURL };
const noRetries = { strategy: "none" };
const counter = { calls: 0 };
const P_CHAIN = "11111111111111111111111111111111LpoYY";

// ---- what the node says, read once per attempt ----

// A transaction's method as its input says: its call type, the input's selector, and a name
// that hashes to it (every call of firn's history is to a contract it ships the ABI of).
function checkMethod(hash, m, tx) {
  if (!tx.to) {
    check(m.callType === "CONTRACT_CREATION" && m.methodName === "Contract Created", `${hash} method of a deployment`);
  } else if (tx.input === "0x") {
    check(m.callType === "NATIVE_TRANSFER" && m.methodName === "Native Transfer", `${hash} method of a transfer`);
  } else {
    const selector = tx.input.slice(0, 10);
    check(m.callType === "CONTRACT_CALL" && m.methodHash === selector, `${hash} method hash ${m.methodHash} != ${selector}`);
    check(m.methodName !== undefined && functionSelector(m.methodName) === selector, `${hash} method name ${m.methodName} hashes to ${selector}`);
  }
}

async function nodeState() {
  const p = await pchainView(node);
  const current = await currentStakers(node);
  const rewards = new Map(); // staking tx → { committed, utxos, rewardTxId }
  for (const [stakingTx, end] of p.ended) {
    const { status } = await node.platform("getTxStatus", { txID: end.rewardTxId });
    rewards.set(stakingTx, { committed: status === "Committed", utxos: await rewardUtxos(node, stakingTx), ...end });
  }
  const { blockchains } = await node.platform("getBlockchains");
  const evm = [await evmView(node, "/ext/bc/C/rpc")];
  for (const c of blockchains.filter((c) => c.subnetID !== P_CHAIN)) {
    try {
      evm.push(await evmView(node, `/ext/bc/${c.id}/rpc`));
    } catch (e) {
      // Only EVM chains answer eth_*; the history's L1 runs subnet-EVM.
      if (!String(e).includes("eth_")) throw e;
    }
  }
  const x = await xchainView(node);
  return { p, current, rewards, blockchains, evm, x };
}

async function heights(state) {
  const x = Number((await node.rpc("/ext/bc/X", "avm.getHeight", {})).height);
  return JSON.stringify([await node.pHeight(), x, ...(await Promise.all(state.evm.map((c) => node.eth(c.chainPath, "eth_blockNumber"))))]);
}

// The Data API must have indexed every chain up to the node's heights before comparing.
async function waitIndexed(sdk, state) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const p = await sdk.data.primaryNetwork.blocks.listLatest({ network: "fuji", blockchainId: "p-chain", pageSize: 1 }, o);
    let done = Number(p.result.blocks[0]?.blockNumber) === state.p.height;
    const x = await sdk.data.primaryNetwork.blocks.listLatest({ network: "fuji", blockchainId: "x-chain", pageSize: 1 }, o);
    done &&= Number(x.result.blocks[0]?.blockNumber) === state.x.height;
    for (const c of state.evm) {
      const b = await sdk.data.evm.blocks.listLatest({ chainId: c.chainId, pageSize: 1 }, o);
      done &&= Number(b.result.blocks[0]?.blockNumber) === c.head;
    }
    if (done) return;
    check(Date.now() < deadline, "the Data API did not catch up with the node within 120 s");
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---- the P-Chain steps ----

function pchainSteps(label, d, s) {
  const net = { network: "fuji" };
  const P = { ...net, blockchainId: "p-chain" };
  const { p, current, rewards } = s;
  // The busiest address: enough txs for several pages.
  const [busiestHex] = [...p.touched.entries()].sort((a, b) => b[1].size - a[1].size)[0];
  const addressOf = new Map();
  for (const st of p.stakers.values()) for (const a of st.rewardOwners) addressOf.set(bech32Hex(a), a);
  const stakers = [...p.stakers.entries()];
  return {
    listLatestPrimaryNetworkBlocks: async () => {
      const blocks = await pages(counter, "blocks", () => d.primaryNetwork.blocks.listLatest({ ...P, pageSize: 7 }, o), "blocks", 2, 4);
      check(Number(blocks[0].blockNumber) === p.height, `newest block ${blocks[0].blockNumber} != getHeight ${p.height}`);
      for (const b of blocks) {
        const n = p.blocks.get(Number(b.blockNumber));
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
      counter.calls++;
      const nodeId = first.result.blocks[0].proposerDetails?.proposerNodeId;
      if (!nodeId) {
        // The devnet's blocks carry no proposer wrapper: no node has proposed any block.
        const [v] = current.values();
        counter.calls++;
        const r = await d.primaryNetwork.blocks.listByNodeId({ ...P, nodeId: v.nodeID, pageSize: 2 }, o);
        check(r.result.blocks.length === 0, `blocks listed for proposer ${v.nodeID}, but the node's blocks name none`);
        return;
      }
      const blocks = await pages(counter, "byNode", () => d.primaryNetwork.blocks.listByNodeId({ ...P, nodeId, pageSize: 2 }, o), "blocks", 2, 3);
      for (const b of blocks) {
        check(b.proposerDetails.proposerNodeId === nodeId, "proposer");
        check(b.blockHash === p.blocks.get(Number(b.blockNumber))?.id, `block ${b.blockNumber} hash`);
      }
    },
    listLatestPrimaryNetworkTransactions: async () => {
      const address = addressOf.get(busiestHex) ?? (await bech32Of(busiestHex));
      const txs = await pages(counter, "txs", () => d.primaryNetwork.transactions.listLatest({ ...P, addresses: address, pageSize: 10 }, o), "transactions", 2);
      sameSet(txs.map((t) => t.txHash), [...p.touched.get(busiestHex)], `txs of ${address} (outputs, inputs, reward owners)`);
      for (const t of txs.slice(0, 12)) {
        const block = p.blocks.get(Number(t.blockNumber));
        check(block && txIdsOf(block).includes(t.txHash), `tx ${t.txHash} not in node block ${t.blockNumber}`);
        check(t.blockHash === block.id, `tx ${t.txHash} block hash`);
        check(t.blockTimestamp === block.time, `tx ${t.txHash} timestamp`);
        const tx = txsOf(block).find((x) => x.id === t.txHash);
        const outs = tx.unsignedTx.outputs ?? [];
        const mine = t.emittedUtxos.filter((u) => u.txHash === t.txHash && !u.staked).map((u) => `${u.outputIndex}:${u.amount}`).sort();
        const theirs = outs.map((out, i) => `${i}:${out.output.amount ?? out.output.output?.amount}`).sort();
        check(JSON.stringify(mine) === JSON.stringify(theirs), `tx ${t.txHash} outputs ${mine} != node ${theirs}`);
        check(t.consumedUtxos.length === (tx.unsignedTx.inputs ?? []).length + (tx.unsignedTx.importedInputs ?? []).length, `tx ${t.txHash} inputs`);
      }
    },
    listActivePrimaryNetworkStakingTransactions: async () => {
      // The reward owner with the most current stakes.
      const counts = new Map();
      for (const [id] of current) for (const a of p.stakers.get(id)?.rewardOwners ?? []) counts.set(a, (counts.get(a) ?? 0) + 1);
      const [address] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
      const hex = bech32Hex(address);
      const txs = await pages(counter, "staking", () => d.primaryNetwork.transactions.listActiveStakingTransactions({ ...P, addresses: address, pageSize: 2 }, o), "transactions", 2);
      const want = [...current.keys()].filter((id) => p.touched.get(hex)?.has(id));
      sameSet(txs.map((t) => t.txHash), want, `active staking txs of ${address} (getCurrentValidators)`);
      for (const t of txs) {
        const st = p.stakers.get(t.txHash);
        check(t.nodeId === st.nodeID, `${t.txHash} nodeId ${t.nodeId} != ${st.nodeID}`);
        check(t.startTimestamp === st.start && t.endTimestamp === st.end, `${t.txHash} staking period`);
        const cur = current.get(t.txHash);
        check(String(t.estimatedReward) === cur.potentialReward, `${t.txHash} estimatedReward ${t.estimatedReward} != potentialReward ${cur.potentialReward}`);
      }
    },
    listDelegators: async () => {
      const got = await pages(counter, "delegators", () => d.primaryNetwork.listDelegators({ ...net, pageSize: 4 }, o), "delegators", 2);
      const delegators = stakers.filter(([, st]) => st.kind === "delegator");
      const active = delegators.filter(([id]) => current.has(id)).map(([id]) => id);
      const completed = delegators.filter(([id]) => rewards.has(id)).map(([id]) => id);
      sameSet(got.filter((x) => x.delegationStatus === "active").map((x) => x.txHash), active, "active delegators (getCurrentValidators)");
      sameSet(got.filter((x) => x.delegationStatus === "completed").map((x) => x.txHash), completed, "completed delegators (RewardValidatorTx)");
      check(got.every((x) => x.delegationStatus !== "pending"), "no pending delegators after Durango");
      for (const x of got) {
        const st = p.stakers.get(x.txHash);
        check(x.nodeId === st.nodeID, `${x.txHash} nodeId`);
        check(x.amountDelegated === String(st.weight), `${x.txHash} amountDelegated ${x.amountDelegated} != ${st.weight}`);
        check(x.startTimestamp === st.start && x.endTimestamp === st.end, `${x.txHash} period`);
        check(JSON.stringify(x.rewardAddresses) === JSON.stringify(st.rewardOwners), `${x.txHash} rewardAddresses ${x.rewardAddresses} != ${st.rewardOwners}`);
        const shares = [...p.stakers.values()].find((v) => v.kind === "validator" && v.nodeID === st.nodeID && v.start <= st.start && st.end <= v.end)?.shares;
        check(shares !== undefined, `${x.txHash}: the node has no validator for ${st.nodeID}`);
        if (x.delegationStatus === "active") {
          const potential = BigInt(current.get(x.txHash).potentialReward);
          const { delegator, fee } = splitReward(potential, shares);
          check(x.estimatedGrossReward === String(potential), `${x.txHash} estimatedGrossReward ${x.estimatedGrossReward} != potentialReward ${potential}`);
          check(x.estimatedNetReward === String(delegator), `${x.txHash} estimatedNetReward ${x.estimatedNetReward} != ${delegator}`);
          check(x.delegationFee === String(fee), `${x.txHash} delegationFee ${x.delegationFee} != ${fee}`);
        } else {
          const r = rewards.get(x.txHash);
          const paid = r.utxos.reduce((sum, u) => sum + u.amount, 0n);
          check(x.netReward === String(paid), `${x.txHash} netReward ${x.netReward} != reward UTXOs ${paid}`);
          const gross = BigInt(x.grossReward);
          const split = splitReward(gross, shares);
          check(r.committed ? split.delegator === paid : gross === 0n, `${x.txHash} grossReward ${gross} does not split into net ${paid} at ${shares} shares`);
          check(x.delegationFee === String(gross - paid), `${x.txHash} delegationFee ${x.delegationFee} != gross - net`);
        }
      }
    },
    listHistoricalPrimaryNetworkRewards: async () => {
      // Every reward UTXO, by owner; the owner with the most.
      const byOwner = new Map();
      for (const [stakingTx, r] of rewards) {
        for (const u of r.utxos) {
          for (const a of u.addresses) {
            if (!byOwner.has(a)) byOwner.set(a, []);
            byOwner.get(a).push({ stakingTx, ...u, rewardTxId: r.rewardTxId });
          }
        }
      }
      const [hex, want] = [...byOwner.entries()].sort((a, b) => b[1].length - a[1].length)[0];
      const address = addressOf.get(hex);
      check(address, `reward owner ${hex} is no staking tx's reward owner`);
      const got = await pages(counter, "rewards", () => d.primaryNetwork.rewards.listHistoricalRewards({ ...net, addresses: address, pageSize: 2 }, o), "historicalRewards", 2);
      const key = (stakingTx, index, amount) => `${stakingTx}:${index}:${amount}`;
      sameSet(got.map((r) => key(r.txHash, r.outputIndex, r.reward.amount)), want.map((u) => key(u.stakingTx, u.outputIndex, u.amount)), `rewards of ${address} (getRewardUTXOs)`);
      for (const r of got) {
        const st = p.stakers.get(r.txHash);
        check(r.rewardTxHash === rewards.get(r.txHash).rewardTxId, `${r.txHash} rewardTxHash`);
        check(r.nodeId === st.nodeID && r.amountStaked === String(st.weight), `${r.txHash} nodeId/amountStaked`);
        check(r.startTimestamp === st.start && r.endTimestamp === st.end, `${r.txHash} period`);
        const want = st.kind === "delegator" ? "DELEGATOR" : ["VALIDATOR", "VALIDATOR_FEE"];
        check([want].flat().includes(r.rewardType), `${r.txHash} rewardType ${r.rewardType}`);
      }
    },
    getBlockchainById: async () => {
      // Chains created by a tx (the genesis chains have no creating tx to index).
      const created = new Map();
      for (const b of p.blocks.values()) for (const tx of txsOf(b)) if (tx.unsignedTx.genesisData !== undefined) created.set(tx.id, tx.unsignedTx);
      const chains = s.blockchains.filter((c) => created.has(c.id));
      check(chains.length > 0, "the history creates a blockchain");
      for (const c of chains) {
        counter.calls++;
        const r = await d.primaryNetwork.getBlockchainById({ ...net, blockchainId: c.id }, o);
        check(r.blockchainName === c.name, `blockchain ${c.id} name ${r.blockchainName} != ${c.name}`);
        check(r.subnetId === c.subnetID, `blockchain ${c.id} subnet`);
        check(r.vmId === c.vmID, `blockchain ${c.id} vm`);
        // Go's JSON gives `[]byte` as base64.
        const genesis = JSON.parse(Buffer.from(created.get(c.id).genesisData, "base64").toString("utf8"));
        const served = typeof r.genesisData === "string" ? JSON.parse(r.genesisData) : r.genesisData;
        // avacloud-sdk 0.13's `GenesisData` schema is an empty object: it strips every key.
        if (label === "avacloud-sdk") check(served && typeof served === "object", `blockchain ${c.id} genesis`);
        else check(canonical(served) === canonical(genesis), `blockchain ${c.id} genesis ${canonical(served).slice(0, 200)} != the CreateChainTx's ${canonical(genesis).slice(0, 200)}`);
        const evm = s.evm.find((e) => e.chainPath === `/ext/bc/${c.id}/rpc`);
        if (evm) check(String(r.evmChainId) === evm.chainId, `blockchain ${c.id} evmChainId ${r.evmChainId} != eth_chainId ${evm.chainId}`);
      }
    },
    listBlockchains: async () => {
      // Every chain getBlockchains lists, the genesis's X and C included, oldest first.
      const got = await pages(counter, "blockchains", () => d.primaryNetwork.listBlockchains({ ...net, pageSize: 2, sortOrder: "asc" }, o), "blockchains", 2);
      const key = (id, name, subnet, vm) => `${id}:${name}:${subnet}:${vm}`;
      sameSet(got.map((b) => key(b.blockchainId, b.blockchainName, b.subnetId, b.vmId)), s.blockchains.map((c) => key(c.id, c.name, c.subnetID, c.vmID)), "listBlockchains (getBlockchains)");
      const heights = got.map((b) => Number(b.createBlockNumber));
      check(heights.every((h, i) => i === 0 || h >= heights[i - 1]), `listBlockchains oldest first: ${heights}`);
      for (const c of s.blockchains.filter((c) => c.subnetID === P_CHAIN)) {
        counter.calls++;
        const r = await d.primaryNetwork.getBlockchainById({ ...net, blockchainId: c.id }, o);
        check(r.blockchainName === c.name && r.vmId === c.vmID && r.createBlockNumber === "0", `genesis chain ${c.id}: ${JSON.stringify(r)}`);
        const evm = s.evm.find((e) => e.chainPath === `/ext/bc/${c.id}/rpc`);
        if (evm) check(String(r.evmChainId) === evm.chainId, `${c.name} evmChainId ${r.evmChainId} != eth_chainId ${evm.chainId}`);
      }
    },
    "listValidators and getValidatorDetails": async () => {
      // Active primary-network validators against getCurrentValidators (asked node by node,
      // so each carries its delegators), two a page.
      const vals = [...current.values()].filter((v) => v.kind === "validator");
      const got = await pages(counter, "validators", () => d.primaryNetwork.listValidators({ ...net, subnetId: P_CHAIN, validationStatus: "active", pageSize: 2 }, o), "validators", Math.min(2, vals.length));
      sameSet(got.map((x) => x.txHash), vals.map((v) => v.txID), "active validators (getCurrentValidators)");
      const total = vals.reduce((sum, v) => sum + BigInt(v.weight), 0n);
      const MAX_WEIGHT = 3_000_000n * 1_000_000_000n;
      for (const x of got) {
        const v = current.get(x.txHash);
        const w = BigInt(v.weight);
        const delegated = BigInt(v.delegatorWeight);
        check(x.nodeId === v.nodeID && x.amountStaked === v.weight, `${x.txHash} node/stake`);
        check(x.startTimestamp === Number(v.startTime) && x.endTimestamp === Number(v.endTime), `${x.txHash} period`);
        check(x.delegatorCount === Number(v.delegatorCount) && x.amountDelegated === v.delegatorWeight, `${x.txHash} delegations ${x.delegatorCount}/${x.amountDelegated} != ${v.delegatorCount}/${v.delegatorWeight}`);
        check(x.uptimePerformance === Number(v.uptime), `${x.txHash} uptime ${x.uptimePerformance} != ${v.uptime}`);
        check(x.validatorHealth.reachabilityPercent === (v.connected ? 100 : 0), `${x.txHash} reachability vs connected ${v.connected}`);
        check(x.delegationFee === String(Number(v.delegationFee)), `${x.txHash} delegationFee ${x.delegationFee} != ${v.delegationFee}`);
        const shares = Math.round(Number(v.delegationFee) * 10_000);
        const fees = (v.delegators ?? []).reduce((sum, d) => sum + splitReward(BigInt(d.potentialReward), shares).fee, 0n);
        check(x.potentialRewards.validationRewardAmount === v.potentialReward, `${x.txHash} validation reward ${x.potentialRewards.validationRewardAmount} != potentialReward ${v.potentialReward}`);
        check(x.potentialRewards.delegationRewardAmount === String(fees), `${x.txHash} delegation fees to come ${x.potentialRewards.delegationRewardAmount} != ${fees}`);
        const most = w * 5n < MAX_WEIGHT ? w * 5n : MAX_WEIGHT;
        const capacity = most > w + delegated ? most - w - delegated : 0n;
        check(x.delegationCapacity === String(capacity), `${x.txHash} delegationCapacity ${x.delegationCapacity} != ${capacity}`);
        check(Math.abs(x.stakePercentage - Number((w * 10n ** 12n) / total) / 1e10) < 1e-6, `${x.txHash} stakePercentage ${x.stakePercentage}`);
      }
      // Completed primary validations: their rewards are the node's reward UTXOs.
      const done = await pages(counter, "completed", () => d.primaryNetwork.listValidators({ ...net, subnetId: P_CHAIN, validationStatus: "completed", pageSize: 3 }, o), "validators", 1);
      const rewarded = stakers.filter(([id, st]) => st.kind === "validator" && rewards.has(id)).map(([id]) => id);
      sameSet(done.map((x) => x.txHash), rewarded, "completed validators (RewardValidatorTx)");
      for (const x of done) {
        const paid = rewards.get(x.txHash).utxos.reduce((sum, u) => sum + u.amount, 0n);
        const shown = BigInt(x.rewards.validationRewardAmount) + BigInt(x.rewards.delegationRewardAmount);
        check(shown === paid, `${x.txHash} rewards ${shown} != reward UTXOs ${paid}`);
      }
      // Sorted by delegation capacity, largest first, across pages.
      const byCapacity = await pages(counter, "byCapacity", () => d.primaryNetwork.listValidators({ ...net, validationStatus: "active", sortBy: "delegationCapacity", pageSize: 2 }, o), "validators", Math.min(2, vals.length));
      const caps = byCapacity.map((x) => BigInt(x.delegationCapacity ?? 0));
      check(caps.every((c, i) => i === 0 || c <= caps[i - 1]), `delegationCapacity descending: ${caps}`);
      // One node's validations, on every subnet (getCurrentValidators of each subnet).
      const [first] = vals;
      const one = await pages(counter, "validator", () => d.primaryNetwork.getValidatorDetails({ ...net, nodeId: first.nodeID, pageSize: 1 }, o), "validators", 1);
      check(one.every((x) => x.nodeId === first.nodeID), "getValidatorDetails: one node");
      check(one.some((x) => x.txHash === first.txID), `getValidatorDetails lists ${first.txID}`);
    },
    getNetworkDetails: async () => {
      counter.calls++;
      const r = await d.primaryNetwork.getNetworkDetails(net, o);
      const { supply } = await node.platform("getCurrentSupply", {});
      const all = [...current.values()];
      const sum = (xs, f) => xs.reduce((acc, x) => acc + BigInt(f(x)), 0n);
      const vals = all.filter((x) => x.kind === "validator");
      const dels = all.filter((x) => x.kind === "delegator");
      const v = r.validatorDetails;
      check(v.validatorCount === vals.length && v.totalAmountStaked === String(sum(vals, (x) => x.weight)), `validators ${v.validatorCount}/${v.totalAmountStaked} (getCurrentValidators)`);
      check(r.delegatorDetails.delegatorCount === dels.length && r.delegatorDetails.totalAmountStaked === String(sum(dels, (x) => x.weight)), `delegators ${JSON.stringify(r.delegatorDetails)}`);
      check(v.estimatedAnnualStakingReward === String(sum(all, (x) => x.potentialReward)), `potential rewards ${v.estimatedAnnualStakingReward}`);
      const ratio = Number(sum(all, (x) => x.weight)) / Number(supply);
      check(Math.abs(Number(v.stakingRatio) - ratio) < 1e-12, `stakingRatio ${v.stakingRatio} != ${ratio} (getCurrentSupply ${supply})`);
    },
    listPendingPrimaryNetworkRewards: async () => {
      const [v] = [...current.values()].filter((x) => x.kind === "validator" && (x.delegators ?? []).length > 0);
      check(v, "a current validator with delegators");
      const got = await pages(counter, "pending", () => d.primaryNetwork.rewards.listPendingRewards({ ...net, nodeIds: v.nodeID, pageSize: 1 }, o), "pendingRewards", 2);
      sameSet(got.map((x) => x.txHash), [v.txID, ...v.delegators.map((x) => x.txID)], `pending rewards of ${v.nodeID} (getCurrentValidators)`);
      const shares = Math.round(Number(v.delegationFee) * 10_000);
      for (const x of got) {
        const st = current.get(x.txHash);
        const want = st.kind === "validator" ? BigInt(st.potentialReward) : splitReward(BigInt(st.potentialReward), shares).delegator;
        check(x.rewardType === (st.kind === "validator" ? "VALIDATOR" : "DELEGATOR"), `${x.txHash} rewardType ${x.rewardType}`);
        check(x.estimatedReward.amount === String(want), `${x.txHash} estimatedReward ${x.estimatedReward.amount} != ${want}`);
        check(x.progress >= 0 && x.progress <= 100, `${x.txHash} progress ${x.progress}`);
      }
    },
    "listSubnets and getSubnetById": async () => {
      const { subnets } = await node.platform("getSubnets", {});
      const ids = subnets.map((x) => x.id).filter((id) => id !== P_CHAIN);
      check(ids.length > 0, "the history creates a subnet");
      const got = await pages(counter, "subnets", () => d.primaryNetwork.listSubnets({ ...net, pageSize: 1 }, o), "subnets", Math.min(2, ids.length));
      sameSet(got.map((x) => x.subnetId), ids, "listSubnets (getSubnets)");
      // ConvertSubnetToL1Tx: the one tx naming a subnet, a manager address and validators.
      const conversions = new Map();
      for (const b of p.blocks.values()) {
        for (const tx of txsOf(b)) {
          const u = tx.unsignedTx;
          if (u.subnetID && u.address !== undefined && Array.isArray(u.validators)) conversions.set(u.subnetID, tx.id);
        }
      }
      for (const id of ids) {
        counter.calls += 2;
        const want = await node.platform("getSubnet", { subnetID: id });
        const r = await d.primaryNetwork.getSubnetById({ ...net, subnetId: id }, o);
        const owner = r.subnetOwnershipInfo;
        sameSet(owner.addresses, want.controlKeys.map((k) => k.replace(/^P-/, "")), `subnet ${id} owners (getSubnet)`);
        check(owner.threshold === Number(want.threshold) && owner.locktime === Number(want.locktime), `subnet ${id} threshold/locktime`);
        check(r.isL1 === !want.isPermissioned, `subnet ${id} isL1 ${r.isL1}, isPermissioned ${want.isPermissioned}`);
        if (r.isL1) {
          const m = r.l1ValidatorManagerDetails;
          check(m?.blockchainId === want.managerChainID && m?.contractAddress.toLowerCase() === want.managerAddress.toLowerCase(), `subnet ${id} manager ${JSON.stringify(m)} != ${want.managerChainID} ${want.managerAddress}`);
          check(r.l1ConversionTransactionHash === conversions.get(id), `subnet ${id} conversion tx ${r.l1ConversionTransactionHash} != ${conversions.get(id)}`);
        }
        sameSet(r.blockchains.map((c) => c.blockchainId), s.blockchains.filter((c) => c.subnetID === id).map((c) => c.id), `subnet ${id} chains (getBlockchains)`);
      }
    },
    "getTxByHash and getBlockById": async () => {
      // The newest blocks with transactions, each by height and by ID, and their first tx.
      const withTxs = [...p.blocks.entries()].filter(([, b]) => txIdsOf(b).length > 0).slice(-4);
      check(withTxs.length > 0, "blocks with transactions");
      for (const [height, b] of withTxs) {
        counter.calls += 3;
        const byHeight = await d.primaryNetwork.blocks.get({ ...P, blockId: String(height) }, o);
        const byId = await d.primaryNetwork.blocks.get({ ...P, blockId: b.id }, o);
        check(JSON.stringify(byHeight) === JSON.stringify(byId), `block ${height} by height and by ID differ`);
        check(byHeight.blockHash === b.id && byHeight.parentHash === b.parentID && Number(byHeight.blockNumber) === height, `block ${height} (getBlockByHeight)`);
        check(JSON.stringify(byHeight.transactions) === JSON.stringify(txIdsOf(b)), `block ${height} transactions`);
        const [first] = txIdsOf(b);
        const tx = await d.primaryNetwork.transactions.get({ ...P, txHash: first }, o);
        check(tx.txHash === first && tx.blockHash === b.id && Number(tx.blockNumber) === height, `tx ${first}: block ${tx.blockNumber} ${tx.blockHash}`);
      }
    },
    getChainIdsForAddresses: async () => {
      counter.calls++;
      const address = addressOf.get(busiestHex) ?? (await bech32Of(busiestHex));
      const r = await d.primaryNetwork.getChainIdsForAddresses({ ...net, addresses: address }, o);
      check(r.addresses[0].blockchainIds.includes(P_CHAIN), "the P-Chain listed");
    },
  };
}

// The Data API's bare bech32 form of an address known only by its bytes: any staking tx's
// reward owner or tx output names it; found through the Data API's own tx listing would be
// circular, so the node's JSON is searched.
let bechByHex = null;
async function bech32Of(hex) {
  if (!bechByHex) {
    bechByHex = new Map();
    for (const b of state.p.blocks.values()) {
      for (const tx of txsOf(b)) {
        for (const out of [...(tx.unsignedTx.outputs ?? []), ...(tx.unsignedTx.stake ?? [])]) {
          for (const a of out.output?.addresses ?? out.output?.output?.addresses ?? []) bechByHex.set(bech32Hex(a), a.replace(/^P-/, ""));
        }
      }
    }
  }
  return bechByHex.get(hex);
}

// JSON with every object's keys sorted, to compare documents whatever their key order.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

// ---- the EVM steps, per chain ----

function evmSteps(d, c) {
  const chain = { chainId: c.chainId };
  const blockFields = (b, n) => {
    check(b.blockHash === n.hash, `${c.chainId} block ${b.blockNumber} hash`);
    check(b.parentHash === n.parentHash, `${c.chainId} block ${b.blockNumber} parent`);
    check(b.blockTimestamp === Number(n.timestamp), `${c.chainId} block ${b.blockNumber} timestamp`);
    check(b.txCount === n.transactions.length, `${c.chainId} block ${b.blockNumber} txCount ${b.txCount} != ${n.transactions.length}`);
    check(b.gasUsed === String(BigInt(n.gasUsed)), `${c.chainId} block ${b.blockNumber} gasUsed`);
    check(b.gasLimit === String(BigInt(n.gasLimit)), `${c.chainId} block ${b.blockNumber} gasLimit`);
    if (n.baseFeePerGas) check(b.baseFee === String(BigInt(n.baseFeePerGas)), `${c.chainId} block ${b.blockNumber} baseFee`);
  };
  const erc20Holder = busiest(c.erc20);
  const erc721Holder = busiest(c.erc721);
  const erc1155Holder = busiest(c.erc1155);
  const sender = busiest(c.txs);
  const txKey = (t) => `${t.txHash}:${t.blockNumber}:${t.index ?? t.blockIndex}:${t.status ?? t.txStatus}`.toLowerCase();
  const collector = [...c.holdings.entries()].sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  return {
    [`${c.chainId} supportedChains`]: async () => {
      counter.calls += 2;
      const list = await d.evm.chains.list({ network: "testnet" }, o);
      check(list.chains.some((x) => x.chainId === c.chainId), `chain ${c.chainId} listed`);
      const one = await d.evm.chains.get(chain, o);
      check(one.chainId === c.chainId, "chain info");
    },
    [`${c.chainId} getLatestBlocks`]: async () => {
      const blocks = await pages(counter, "evmBlocks", () => d.evm.blocks.listLatest({ ...chain, pageSize: 10 }, o), "blocks", 2, 3);
      check(Number(blocks[0].blockNumber) === c.head, `${c.chainId} newest ${blocks[0].blockNumber} != eth_blockNumber ${c.head}`);
      for (const b of blocks) blockFields(b, c.blocks.get(Number(b.blockNumber)));
    },
    [`${c.chainId} getBlock`]: async () => {
      const busy = [...c.blocks.values()].filter((b) => b.transactions.length > 0).at(-1);
      for (const blockId of [String(Number(busy.number)), busy.hash]) {
        counter.calls++;
        blockFields(await d.evm.blocks.get({ ...chain, blockId }, o), busy);
      }
    },
    [`${c.chainId} getDeploymentTransaction`]: async () => {
      check(c.deployments.size > 0, `${c.chainId}: the history deploys contracts`);
      for (const [address, dep] of c.deployments) {
        counter.calls++;
        const r = await d.evm.contracts.getDeploymentTransaction({ ...chain, address }, o);
        check(r.nativeTransaction.txHash === dep.txHash, `${address} deployed by ${r.nativeTransaction.txHash} != ${dep.txHash}`);
        check(r.nativeTransaction.blockNumber === String(dep.blockNumber), `${address} deployment block`);
        check(r.nativeTransaction.from.address.toLowerCase() === dep.from, `${address} deployer`);
      }
    },
    [`${c.chainId} listErc20Transactions`]: async () => {
      const got = await pages(counter, "erc20", () => d.evm.address.transactions.listErc20({ ...chain, address: erc20Holder, pageSize: 3 }, o), "transactions", 2);
      const want = c.erc20.filter((e) => e.from === erc20Holder || e.to === erc20Holder);
      const key = (txHash, logIndex, from, to, value, token) => `${txHash}:${logIndex}:${from}:${to}:${value}:${token}`.toLowerCase();
      sameSet(
        got.map((t) => key(t.txHash, t.logIndex, t.from.address, t.to.address, t.value, t.erc20Token.address)),
        want.map((e) => key(e.txHash, e.logIndex, e.from, e.to, e.value, e.contract)),
        `${c.chainId} ERC-20 transfers of ${erc20Holder} (eth_getLogs)`,
      );
      const blocks = got.map((t) => Number(t.blockNumber));
      check(blocks.every((n, i) => i === 0 || n <= blocks[i - 1]), "ERC-20 transfers newest first");
      for (const contract of new Set(got.map((t) => t.erc20Token.address))) {
        const meta = await erc20Metadata(node, c.chainPath, contract);
        const t = got.find((x) => x.erc20Token.address === contract).erc20Token;
        check(t.name === meta.name && t.symbol === meta.symbol && t.decimals === meta.decimals, `${contract} metadata ${JSON.stringify(t)} != ${JSON.stringify(meta)}`);
      }
    },
    [`${c.chainId} listErc721Transactions`]: async () => {
      const got = await pages(counter, "erc721", () => d.evm.address.transactions.listErc721({ ...chain, address: erc721Holder, pageSize: 1 }, o), "transactions", 2);
      const want = c.erc721.filter((e) => e.from === erc721Holder || e.to === erc721Holder);
      const key = (txHash, logIndex, from, to, id, token) => `${txHash}:${logIndex}:${from}:${to}:${id}:${token}`.toLowerCase();
      sameSet(
        got.map((t) => key(t.txHash, t.logIndex, t.from.address, t.to.address, t.erc721Token.tokenId, t.erc721Token.address)),
        want.map((e) => key(e.txHash, e.logIndex, e.from, e.to, e.tokenId, e.contract)),
        `${c.chainId} ERC-721 transfers of ${erc721Holder} (eth_getLogs)`,
      );
      // A token URI the indexer has read is the contract's (what it has not read yet is empty).
      for (const t of got.filter((x) => x.erc721Token.tokenUri !== "").slice(0, 6)) {
        const onChain = await tokenUri(node, c.chainPath, t.erc721Token.address, t.erc721Token.tokenId, "ERC-721");
        check(t.erc721Token.tokenUri === onChain, `${t.erc721Token.address}#${t.erc721Token.tokenId} tokenUri on its transfer (tokenURI)`);
      }
    },
    [`${c.chainId} listLatestTransactions`]: async () => {
      const newest = c.txs.toReversed();
      const got = await pages(counter, "evmTxs", () => d.evm.transactions.listLatest({ ...chain, pageSize: 10 }, o), "transactions", 2, 3);
      check(got.map(txKey).join() === newest.slice(0, got.length).map(txKey).join(), `${c.chainId} latest transactions (eth_getBlockReceipts)`);
      const failed = await pages(counter, "failedTxs", () => d.evm.transactions.listLatest({ ...chain, status: "failed", pageSize: 10 }, o), "transactions", 1, 2);
      const want = newest.filter((t) => t.status === "0").slice(0, failed.length);
      check(failed.map(txKey).join() === want.map(txKey).join(), `${c.chainId} failed transactions (receipt status)`);
    },
    [`${c.chainId} getTransactionsForBlock`]: async () => {
      const busy = [...c.blocks.values()].filter((b) => b.transactions.length > 1).at(-1);
      counter.calls++;
      const r = await d.evm.blocks.listTransactions({ ...chain, blockId: busy.hash, pageSize: 0 }, o);
      check(r.transactions.map((t) => t.txHash).join() === busy.transactions.join(), `${c.chainId} block ${Number(busy.number)} transactions in block order`);
    },
    [`${c.chainId} getTransaction`]: async () => {
      const busy = [...c.blocks.values()].filter((b) => b.transactions.length > 0).at(-1);
      // A busy block's first, and the newest token call and deployment.
      const newest = [c.erc20.at(-1), c.erc721.at(-1), [...c.deployments.values()].at(-1)].map((e) => e?.txHash);
      for (const hash of new Set([...busy.transactions.slice(0, 3), ...newest.filter(Boolean)])) {
        counter.calls++;
        const r = await d.evm.transactions.get({ ...chain, txHash: hash }, o);
        const [tx, receipt] = await Promise.all([node.eth(c.chainPath, "eth_getTransactionByHash", [hash]), node.eth(c.chainPath, "eth_getTransactionReceipt", [hash])]);
        const n = r.nativeTransaction;
        check(n.txHash === hash && n.blockHash === receipt.blockHash && n.blockIndex === Number(receipt.transactionIndex), `${hash} position`);
        check(n.from.address.toLowerCase() === receipt.from.toLowerCase() && n.to.address.toLowerCase() === (receipt.to ?? receipt.contractAddress).toLowerCase(), `${hash} from/to`);
        check(n.gasUsed === String(BigInt(receipt.gasUsed)) && n.gasPrice === String(BigInt(receipt.effectiveGasPrice)), `${hash} gas used and price`);
        check(n.txStatus === (receipt.status === "0x1" ? "1" : "0"), `${hash} status`);
        check(n.nonce === String(BigInt(tx.nonce)) && n.value === String(BigInt(tx.value)) && n.input === tx.input && n.txType === Number(tx.type), `${hash} nonce, value, input, type`);
        const trace = await node.eth(c.chainPath, "debug_traceTransaction", [hash, { tracer: "callTracer" }]);
        // Internal transactions are the calls below the transaction's own (the trace's root).
        const frames = (f) => 1 + (f.calls ?? []).reduce((sum, x) => sum + frames(x), 0);
        const nested = frames(trace) - 1;
        check(r.internalTransactions.length === nested, `${hash} internal transactions ${r.internalTransactions.length} != nested call frames ${nested}`);
        const logs = new Set(receipt.logs.map((l) => Number(l.logIndex)));
        const transfers = [...r.erc20Transfers, ...r.erc721Transfers, ...r.erc1155Transfers];
        check(transfers.every((t) => logs.has(t.logIndex)), `${hash} transfers are the receipt's logs`);
        checkMethod(hash, n.method, tx);
        const parties = [n, ...transfers, ...r.internalTransactions].flatMap((x) => [x.from, x.to]);
        check(parties.every((p) => p.address === checksummed(p.address)), `${hash} addresses are EIP-55 checksummed`);
        for (const p of parties.filter((p) => c.erc20.some((e) => e.contract === p.address.toLowerCase()))) {
          const meta = await erc20Metadata(node, c.chainPath, p.address);
          check(p.name === meta.name && p.symbol === meta.symbol && p.decimals === meta.decimals, `${hash} names token ${p.address} ${p.symbol} (eth_call: ${meta.symbol})`);
        }
      }
    },
    [`${c.chainId} listNativeTransactions`]: async () => {
      const got = await pages(counter, "native", () => d.evm.address.transactions.listNative({ ...chain, address: sender, pageSize: 3 }, o), "transactions", 2);
      const want = c.txs.filter((t) => t.from === sender || t.to === sender).toReversed();
      check(got.map(txKey).join() === want.map(txKey).join(), `${c.chainId} native transactions of ${sender} (receipts)`);
    },
    [`${c.chainId} listErc1155Transactions`]: async () => {
      if (!erc1155Holder) return;
      const got = await pages(counter, "erc1155", () => d.evm.address.transactions.listErc1155({ ...chain, address: erc1155Holder, pageSize: 2 }, o), "transactions", 1);
      const want = c.erc1155.filter((e) => e.from === erc1155Holder || e.to === erc1155Holder);
      const key = (txHash, logIndex, from, to, id, value, token) => `${txHash}:${logIndex}:${from}:${to}:${id}:${value}:${token}`.toLowerCase();
      sameSet(
        got.map((t) => key(t.txHash, t.logIndex, t.from.address, t.to.address, t.erc1155Token.tokenId, t.value, t.erc1155Token.address)),
        want.map((e) => key(e.txHash, e.logIndex, e.from, e.to, e.tokenId, e.value, e.contract)),
        `${c.chainId} ERC-1155 transfers of ${erc1155Holder} (eth_getLogs)`,
      );
    },
    [`${c.chainId} listTransactions`]: async () => {
      // Every transaction the sender took part in: its own, its token transfers (logs) and
      // the value-moving calls to or from it (traces), newest first.
      const mine = (e) => e.from === sender || e.to === sender;
      const hashes = new Set([...c.txs, ...c.erc20, ...c.erc721, ...c.erc1155, ...c.moves].filter(mine).map((e) => e.txHash));
      const want = c.txs.filter((t) => hashes.has(t.txHash)).toReversed();
      const got = await pages(counter, "activity", () => d.evm.address.transactions.list({ ...chain, address: sender, pageSize: 3 }, o), "transactions", 2);
      check(got.map((t) => txKey(t.nativeTransaction)).join() === want.map(txKey).join(), `${c.chainId} transactions of ${sender} (receipts, logs, traces)`);
      for (const t of got) {
        const logs = [...t.erc20Transfers, ...t.erc721Transfers, ...t.erc1155Transfers];
        const wantLogs = [...c.erc20, ...c.erc721, ...c.erc1155].filter((e) => e.txHash === t.nativeTransaction.txHash && mine(e));
        sameSet(logs.map((x) => String(x.logIndex)), [...new Set(wantLogs.map((e) => String(e.logIndex)))], `${t.nativeTransaction.txHash} transfers of ${sender}`);
        const calls = c.moves.filter((m) => m.txHash === t.nativeTransaction.txHash && mine(m));
        check(t.internalTransactions.length === calls.length, `${t.nativeTransaction.txHash} value-moving calls of ${sender}: ${t.internalTransactions.length} != ${calls.length}`);
      }
    },
    [`${c.chainId} listInternalTransactions`]: async () => {
      const mover = busiest(c.moves);
      check(mover !== undefined, `${c.chainId}: the history moves value in internal calls`);
      const got = await pages(counter, "internal", () => d.evm.address.transactions.listInternal({ ...chain, address: mover, pageSize: 2 }, o), "transactions", 1);
      const key = (txHash, from, to, type, value, reverted) => `${txHash}:${from}:${to}:${type}:${value}:${reverted}`.toLowerCase();
      // A transaction may make the same call twice: compare as multisets.
      const gotKeys = got.map((i) => key(i.txHash, i.from.address, i.to.address, i.internalTxType, i.value, i.isReverted)).sort();
      const wantKeys = c.moves.filter((m) => m.from === mover || m.to === mover).map((m) => key(m.txHash, m.from, m.to, m.type, m.value, m.reverted)).sort();
      check(gotKeys.join() === wantKeys.join(), `${c.chainId} internal transactions of ${mover} (debug_traceTransaction): ${gotKeys.length} != ${wantKeys.length} or different`);
    },
    [`${c.chainId} listTransfers`]: async () => {
      const token = busiest(c.erc20.map((e) => ({ from: e.contract, to: e.contract })));
      const got = await pages(counter, "tokenTransfers", () => d.evm.contracts.listTransfers({ ...chain, address: token, pageSize: 4 }, o), "transfers", 2);
      sameSet(
        got.map((t) => `${t.txHash}:${t.logIndex}:${t.value}`.toLowerCase()),
        c.erc20.filter((e) => e.contract === token).map((e) => `${e.txHash}:${e.logIndex}:${e.value}`.toLowerCase()),
        `${c.chainId} transfers of token ${token} (eth_getLogs)`,
      );
    },
    [`${c.chainId} listContractDeployments and getContractMetadata`]: async () => {
      const deployer = busiest([...c.deployments.values()].map((x) => ({ from: x.from, to: x.from })));
      const direct = [...c.deployments.entries()].filter(([, x]) => x.from === deployer).map(([a, x]) => `${a}:${x.txHash}`);
      const made = c.created.filter((x) => x.from === deployer).map((x) => `${x.contract}:${x.txHash}`);
      const got = await pages(counter, "deployments", () => d.evm.address.contracts.listDeployments({ ...chain, address: deployer, pageSize: 2 }, o), "contracts", 1);
      sameSet(got.map((x) => `${x.address}:${x.deploymentDetails.txHash}`.toLowerCase()), [...direct, ...made], `${c.chainId} contracts deployed by ${deployer} (receipts, traces)`);
      for (const x of got.slice(0, 4)) {
        counter.calls++;
        const one = await d.evm.contracts.getMetadata({ ...chain, address: x.address }, o);
        check(canonical(one) === canonical(x), `${x.address} metadata is its list entry`);
        if (one.ercType === "ERC-20") {
          const meta = await erc20Metadata(node, c.chainPath, x.address);
          check(one.name === meta.name && one.symbol === meta.symbol && one.decimals === meta.decimals, `${x.address} ERC-20 metadata (eth_call)`);
        }
      }
    },
    [`${c.chainId} getNativeBalance`]: async () => {
      // At blocks the run has read (the head may move on): the head it saw, and block 1, whose
      // state a node that prunes no longer has; then the API must say so with a 400.
      for (const block of [c.head, 1]) {
        counter.calls++;
        let want = null;
        try {
          want = BigInt(await node.eth(c.chainPath, "eth_getBalance", [sender, hexNumber(block)]));
        } catch (e) {
          check(block !== c.head, `${c.chainId} eth_getBalance at the head: ${e}`);
        }
        const asked = d.evm.address.balances.getNative({ ...chain, address: sender, blockNumber: String(block) }, o);
        if (want === null) {
          const refused = await asked.then(() => null, (e) => e);
          check(refused?.statusCode === 400 && String(refused.body$ ?? refused.message).includes("cannot answer at that block"), `${c.chainId} balance at pruned block ${block}: ${refused}`);
        } else {
          const r = await asked;
          check(r.nativeTokenBalance.balance === String(want), `${c.chainId} balance of ${sender} at ${block}: ${r.nativeTokenBalance.balance} != eth_getBalance ${want}`);
        }
      }
    },
    [`${c.chainId} listAddressChains`]: async () => {
      counter.calls++;
      const r = await d.evm.address.chains.list({ address: sender }, o);
      check(r.indexedChains.some((x) => x.chainId === c.chainId), `${sender} took part on ${c.chainId}`);
    },
    [`${c.chainId} listErc20Balances`]: async () => {
      const holder = busiest(c.erc20);
      const touched = [...new Set(c.erc20.filter((e) => e.from === holder || e.to === holder).map((e) => e.contract))];
      const want = [];
      for (const token of touched) {
        const onChain = await balance20(node, c.chainPath, token, holder);
        if (onChain > 0n) want.push(`${token}:${onChain}`);
      }
      check(want.length > 0, `${c.chainId} ${holder} holds ERC-20 tokens (balanceOf)`);
      const got = await pages(counter, "erc20Balances", () => d.evm.address.balances.listErc20({ ...chain, address: holder, pageSize: 1 }, o), "erc20TokenBalances", Math.min(2, want.length));
      sameSet(got.map((x) => `${x.address}:${x.balance}`.toLowerCase()), want, `${c.chainId} ERC-20 balances of ${holder} (balanceOf)`);
      // At the head the run read, which the index has reached: the same tokens, and the
      // holder's native balance at that block.
      counter.calls++;
      const native = BigInt(await node.eth(c.chainPath, "eth_getBalance", [holder, hexNumber(c.head)]));
      const atHead = await d.evm.address.balances.listErc20({ ...chain, address: holder, pageSize: 1, blockNumber: String(c.head) }, o);
      check(atHead.result.nativeTokenBalance.balance === String(native), `${c.chainId} native balance of ${holder} at ${c.head} with its tokens (eth_getBalance)`);
      const [one] = atHead.result.erc20TokenBalances;
      check(one?.address === got[0].address && one?.balance === got[0].balance, `${c.chainId} ${holder}'s first ERC-20 balance at ${c.head}`);
    },
    [`${c.chainId} listErc20Balances of a rebasing token (balanceOf)`]: async () => {
      // Balances folded from the Transfer logs; where balanceOf says otherwise (the history's
      // sFIRN rebases), the Data API must say what balanceOf says, now and at the head.
      const folded = new Map();
      for (const e of c.erc20) {
        if (e.from !== ZERO) folded.set(`${e.contract}:${e.from}`, (folded.get(`${e.contract}:${e.from}`) ?? 0n) - e.value);
        folded.set(`${e.contract}:${e.to}`, (folded.get(`${e.contract}:${e.to}`) ?? 0n) + e.value);
      }
      const drifted = [];
      for (const [key, balance] of folded) {
        const [token, holder] = key.split(":");
        if (holder === ZERO || balance < 0n) continue;
        counter.calls++;
        const onChain = await balance20(node, c.chainPath, token, holder, hexNumber(c.head));
        if (onChain !== balance) drifted.push({ token, holder, onChain });
        if (drifted.length === 3) break;
      }
      // The history deploys sFIRN on every chain; once it has rebased, its holders drift.
      let sFirn = null;
      for (const token of new Set(c.erc20.map((e) => e.contract))) {
        counter.calls++;
        if ((await erc20Metadata(node, c.chainPath, token)).symbol === "sFIRN") sFirn = token;
      }
      check(sFirn !== null, `${c.chainId}: the history's rebasing token sFIRN has no transfers`);
      counter.calls++;
      const sharePrice = BigInt(await node.call(c.chainPath, sFirn, functionSelector("sharePrice()")));
      check(sharePrice === 10n ** 18n || drifted.some((x) => x.token === sFirn), `${c.chainId}: sFIRN rebased to ${sharePrice}, yet no balance of it drifted from its transfers`);
      for (const { token, holder, onChain } of drifted) {
        for (const blockNumber of [undefined, String(c.head)]) {
          counter.calls++;
          const r = await d.evm.address.balances.listErc20({ ...chain, address: holder, contractAddresses: token, blockNumber }, o);
          const [one] = r.result.erc20TokenBalances;
          check(one?.balance === String(onChain), `${c.chainId} ${token} balance of ${holder} at ${blockNumber ?? "the head"}: ${one?.balance} != balanceOf ${onChain}`);
        }
      }
    },
    [`${c.chainId} listErc721Balances and listErc1155Balances`]: async () => {
      const held = [...c.holdings.get(collector).entries()];
      for (const [ercType, list] of [["ERC-721", "listErc721"], ["ERC-1155", "listErc1155"]]) {
        const want = held.filter(([, h]) => h.ercType === ercType);
        const field = ercType === "ERC-721" ? "erc721TokenBalances" : "erc1155TokenBalances";
        const got = await pages(counter, list, () => d.evm.address.balances[list]({ ...chain, address: collector, pageSize: 1 }, o), field, Math.min(2, want.length));
        sameSet(got.map((x) => `${x.address}:${x.tokenId}`.toLowerCase()), want.map(([k]) => k), `${c.chainId} ${ercType} holdings of ${collector} (logs)`);
        for (const x of got.slice(0, 6)) {
          if (ercType === "ERC-721") {
            check((await ownerOf(node, c.chainPath, x.address, x.tokenId)) === collector, `${x.address}#${x.tokenId} ownerOf is ${collector}`);
          } else {
            const onChain = await balance1155(node, c.chainPath, x.address, collector, x.tokenId);
            check(x.balance === String(onChain), `${x.address}#${x.tokenId} balance ${x.balance} != balanceOf ${onChain}`);
          }
        }
      }
    },
    [`${c.chainId} listCollectibleBalances`]: async () => {
      const held = c.holdings.get(collector);
      const got = await pages(counter, "collectibles", () => d.evm.address.balances.listCollectibles({ ...chain, address: collector, pageSize: 1 }, o), "collectibleBalances", Math.min(2, held.size));
      sameSet(
        got.map((x) => `${x.address}:${x.tokenId}`.toLowerCase()),
        [...held.keys()],
        `${c.chainId} collectibles of ${collector} (ERC-721 owners and ERC-1155 balances from logs)`,
      );
      for (const x of got) {
        const h = held.get(`${x.address}:${x.tokenId}`.toLowerCase());
        check(x.ercType === h.ercType, `${x.address}#${x.tokenId} ercType`);
        check(x.tokenUri === (await tokenUri(node, c.chainPath, x.address, x.tokenId, x.ercType)), `${x.address}#${x.tokenId} tokenUri`);
        if (x.ercType === "ERC-1155") {
          const onChain = await balance1155(node, c.chainPath, x.address, collector, x.tokenId);
          check(x.balance === String(h.balance) && onChain === h.balance, `${x.address}#${x.tokenId} balance ${x.balance} (logs ${h.balance}, balanceOf ${onChain})`);
        }
      }
    },
  };
}

// ---- the run ----

async function run(label, sdk, s) {
  const failures = [];
  const steps = {
    ...pchainSteps(label, sdk.data, s),
    ...utxoSteps(sdk.data, { label, counter, o, node, p: s.p, bech32Of }),
    ...xchainSteps(sdk.data, { counter, o, node, x: s.x }),
    ...cchainSteps(sdk.data, { counter, o, node, c: s.evm[0] }),
    ...l1Steps(sdk.data, { counter, o, node, p: s.p, blockchains: s.blockchains }),
    ...icmSteps(sdk.data, { counter, o, node, evm: s.evm, blockchains: s.blockchains }),
    // Only chainkit has the AVAX supply.
    ...(sdk.avaxSupply ? supplySteps(sdk, { counter, o, node, p: s.p, x: s.x, current: s.current, rewards: s.rewards }) : {}),
  };
  for (const c of s.evm) Object.assign(steps, evmSteps(sdk.data, c));
  for (const [name, step] of Object.entries(steps)) {
    try {
      await step();
    } catch (e) {
      failures.push(`${label} ${name}: ${e?.name ?? ""} ${e?.message ?? e}`.slice(0, 2000));
    }
  }
  return failures;
}

const sdks = [
  ["chainkit", new Avalanche({ serverURL, enableTelemetry: false, network: "fuji", retryConfig: noRetries })],
  ["avacloud-sdk", new AvaCloudSDK({ serverURL, network: "fuji", retryConfig: noRetries })],
];
let state;
let failures;
for (let attempt = 1; ; attempt++) {
  state = await nodeState();
  bechByHex = null;
  const before = await heights(state);
  await waitIndexed(sdks[0][1], state);
  failures = [];
  for (const [label, sdk] of sdks) failures.push(...(await run(label, sdk, state)));
  const after = await heights(state);
  console.log(`attempt ${attempt}: node heights ${before} (P-Chain, X-Chain, then each EVM chain), ${failures.length} failures`);
  if (after === before) break;
  check(attempt < 3, `the node kept moving (${before} → ${after}); no stable snapshot in 3 attempts`);
  console.log(`the node moved during the run (${before} → ${after}): reading it again`);
}
console.log(
  `node: P-Chain height ${state.p.height}, ${state.p.stakers.size} stakers, ${state.rewards.size} rewarded; ` +
    `X-Chain height ${state.x.height}, ${state.x.txs.size} txs, ${state.x.assetTxs.size} assets moved; ` +
    `EVM chains ${state.evm.map((c) => `${c.chainId} (head ${c.head}, ${c.erc20.length} ERC-20 and ${c.erc721.length} ERC-721 transfers)`).join(", ")}`,
);
console.log(`node suite: ${counter.calls} calls, ${node.calls} node RPC calls, ${failures.length} failures`);
for (const f of failures) console.log(`FAIL ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
