// The Data API's UTXOs, balances and last activity of P-Chain addresses against the node:
// - the unspent UTXOs (GET and POST lists, two pages or more) are getBalance's `utxoIDs`, plus
//   the stake of stakers still staking (getStake), and sum to its `balance`;
// - the balances by kind are getBalance's unlocked / lockedStakeable / lockedNotStakeable and
//   getStake's staked, for one address and for several at once;
// - the last activity is the newest block that created or spent one of the address's UTXOs.
import { bech32Hex, check, pages, sameSet } from "./rpc.mjs";

const sum = (xs) => xs.reduce((a, x) => a + BigInt(x), 0n);
const avaxOf = (list) => sum((list ?? []).map((a) => a.amount));

// `ctx`: { label, counter, o, node, p, bech32Of }.
export function utxoSteps(d, ctx) {
  const { label, counter, o, node, p, bech32Of } = ctx;
  const P = { network: "fuji", blockchainId: "p-chain" };
  const chainTime = Number(p.blocks.get(p.height).time ?? 0);
  // The node's word on the ten busiest addresses; the one with the most UTXOs first.
  let owners;
  const richest = async () => {
    if (owners) return owners;
    const busiest = [...p.touched.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, 10);
    owners = [];
    for (const [hex] of busiest) {
      const address = await bech32Of(hex);
      if (!address) continue;
      const balance = await node.platform("getBalance", { addresses: [`P-${address}`] });
      const stake = await node.platform("getStake", { addresses: [`P-${address}`] });
      owners.push({ hex, address, balance, stake, utxoIDs: balance.utxoIDs ?? [] });
    }
    owners.sort((a, b) => b.utxoIDs.length - a.utxoIDs.length);
    if (label === "chainkit") console.log(`UTXO owners: ${owners.slice(0, 2).map((x) => `${x.address} (${x.utxoIDs.length} UTXOs, ${x.stake.staked} staked)`).join(", ")}`);
    check(owners[0]?.utxoIDs.length >= 5, `the history gives an address at least 5 UTXOs (most: ${owners[0]?.utxoIDs.length})`);
    return owners;
  };
  // Unspent UTXOs the node lists: all but the stake of stakers still staking.
  const checkUnspent = (got, owner, what) => {
    const staking = got.filter((u) => u.staked && u.utxoEndTimestamp > chainTime);
    const spendable = got.filter((u) => !staking.includes(u));
    sameSet(spendable.map((u) => `${u.txHash}:${u.outputIndex}`), owner.utxoIDs.map((x) => `${x.txID}:${x.outputIndex}`), `${what} (getBalance utxoIDs)`);
    check(sum(spendable.map((u) => u.amount)) === BigInt(owner.balance.balance), `${what}: sum ${sum(spendable.map((u) => u.amount))} != getBalance ${owner.balance.balance}`);
    check(sum(staking.map((u) => u.amount)) === BigInt(owner.stake.staked), `${what}: staked ${sum(staking.map((u) => u.amount))} != getStake ${owner.stake.staked}`);
    for (const u of got) check(u.addresses.includes(owner.address), `${what}: ${u.utxoId} not owned by ${owner.address}`);
  };
  const steps = {
    getUtxosByAddresses: async () => {
      const [o1] = await richest();
      const got = await pages(counter, "utxos", () => d.primaryNetwork.utxos.listByAddresses({ ...P, addresses: o1.address, pageSize: 2 }, o), "utxos", 2);
      checkUnspent(got, o1, `UTXOs of ${o1.address}`);
      const times = got.map((u) => u.blockTimestamp);
      check(times.every((t, i) => i === 0 || t <= times[i - 1]), `newest first: ${times}`);
      // By amount (avacloud-sdk has no sortBy: by time), smallest first, spent ones too.
      const all = await pages(counter, "utxosByAmount", () => d.primaryNetwork.utxos.listByAddresses({ ...P, addresses: o1.address, pageSize: 3, sortBy: "amount", sortOrder: "asc", includeSpent: true }, o), "utxos", 2);
      const keys = all.map((u) => (label === "avacloud-sdk" ? BigInt(u.blockTimestamp) : BigInt(u.amount)));
      check(keys.every((a, i) => i === 0 || a >= keys[i - 1]), `ascending: ${keys}`);
      check(all.length > got.length && all.some((u) => u.consumingTxHash), `includeSpent lists spent UTXOs (${all.length} vs ${got.length})`);
      for (const u of all.filter((u) => u.consumingTxHash)) {
        const block = p.blocks.get(Number(u.consumingBlockNumber));
        check(block && [...(block.txs ?? []), ...(block.tx ? [block.tx] : [])].some((t) => t.id === u.consumingTxHash), `${u.utxoId}: consumed by ${u.consumingTxHash} in block ${u.consumingBlockNumber}`);
      }
    },
    getBalancesByAddresses: async () => {
      const [o1, o2] = await richest();
      for (const group of [[o1], [o1, o2]]) {
        counter.calls++;
        const r = await d.primaryNetwork.balances.listByAddresses({ ...P, addresses: group.map((x) => x.address).join(",") }, o);
        const b = r.balances;
        const addresses = group.map((x) => `P-${x.address}`);
        const balance = group.length === 1 ? group[0].balance : await node.platform("getBalance", { addresses });
        const stake = group.length === 1 ? group[0].stake : await node.platform("getStake", { addresses });
        const what = `balances of ${group.map((x) => x.address)}`;
        check(avaxOf(b.unlockedUnstaked) === BigInt(balance.unlocked), `${what}: unlocked ${avaxOf(b.unlockedUnstaked)} != ${balance.unlocked}`);
        check(avaxOf(b.lockedStakeable) === BigInt(balance.lockedStakeable), `${what}: lockedStakeable`);
        check(avaxOf(b.lockedPlatform) === BigInt(balance.lockedNotStakeable), `${what}: lockedPlatform ${avaxOf(b.lockedPlatform)} != lockedNotStakeable ${balance.lockedNotStakeable}`);
        const staked = avaxOf(b.unlockedStaked) + avaxOf(b.lockedStaked) + avaxOf(b.pendingStaked);
        check(staked === BigInt(stake.staked), `${what}: staked ${staked} != getStake ${stake.staked}`);
        const count = sum([b.unlockedUnstaked, b.lockedStakeable, b.lockedPlatform].flatMap((l) => (l ?? []).map((a) => a.utxoCount)));
        check(count === BigInt((balance.utxoIDs ?? []).length), `${what}: ${count} unstaked UTXOs != getBalance's ${(balance.utxoIDs ?? []).length}`);
      }
    },
  };
  // The POST forms and the last activity are in chainkit only.
  if (label === "chainkit") {
    steps.getUtxosByAddressesV2 = async () => {
      const [o1, o2] = await richest();
      const body = { addresses: `P-${o1.address},${o2.address}` };
      const got = await pages(counter, "utxosV2", () => d.primaryNetwork.utxos.listByAddressesV2({ ...P, pageSize: 3, primaryNetworkAddressesBodyDto: body }, o), "utxos", 2);
      const both = await node.platform("getBalance", { addresses: [`P-${o1.address}`, `P-${o2.address}`] });
      const stake = await node.platform("getStake", { addresses: [`P-${o1.address}`, `P-${o2.address}`] });
      const staking = got.filter((u) => u.staked && u.utxoEndTimestamp > chainTime);
      sameSet(got.filter((u) => !staking.includes(u)).map((u) => `${u.txHash}:${u.outputIndex}`), (both.utxoIDs ?? []).map((x) => `${x.txID}:${x.outputIndex}`), "UTXOs of two addresses (getBalance utxoIDs)");
      check(sum(staking.map((u) => u.amount)) === BigInt(stake.staked), "staked UTXOs of two addresses (getStake)");
    };
    const lastActivity = (v2) => async () => {
      // An address no staker pays: every UTXO it has is in the blocks' outputs.
      const payees = new Set([...p.stakers.values()].flatMap((st) => st.rewardOwners.map(bech32Hex)));
      const [hex, want] = [...p.lastUtxoEvent.entries()].filter(([h]) => !payees.has(h)).sort((a, b) => b[1].height - a[1].height)[0];
      const address = await bech32Of(hex);
      counter.calls++;
      const r = v2
        ? await d.primaryNetwork.utxos.getLastActivityTimestampByAddressesV2({ ...P, primaryNetworkAddressesBodyDto: { addresses: address } }, o)
        : await d.primaryNetwork.utxos.getLastActivityTimestampByAddresses({ ...P, addresses: address }, o);
      check(Number(r.blockNumber) === want.height && r.txHash === want.txId && r.isConsumed === want.consumed, `last activity of ${address}: ${r.blockNumber} ${r.txHash} consumed=${r.isConsumed} != block ${want.height} ${want.txId} consumed=${want.consumed}`);
      check(r.timestamp === Number(p.blocks.get(want.height).time), `last activity time ${r.timestamp}`);
      check(r.chainName === "p-chain" && r.network === "fuji", `chain ${r.chainName} ${r.network}`);
    };
    steps.getLastActivityTimestampByAddresses = lastActivity(false);
    steps.getLastActivityTimestampByAddressesV2 = lastActivity(true);
  }
  return steps;
}
