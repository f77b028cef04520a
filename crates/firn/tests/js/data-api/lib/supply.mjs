// getAvaxSupply (chainkit's `avaxSupply.get`) against the node: the supply it reports less the
// burns is the total supply; the rewards are those getRewardUTXOs paid plus what
// getCurrentValidators says is minted and unpaid (potential rewards, validators' accrued
// delegation fees); the stake is getCurrentValidators'; lastUpdated is the last block's time.

import { check } from "./rpc.mjs";

// Wei of a decimal AVAX amount.
function wei(text) {
  check(typeof text === "string" && /^\d+(\.\d{1,18})?$/.test(text) && !/\.\d*0$/.test(text), `not a trimmed AVAX amount: ${text}`);
  const [whole, frac = ""] = text.split(".");
  return BigInt(whole) * 10n ** 18n + BigInt(frac.padEnd(18, "0"));
}
const nano = (n) => BigInt(n) * 10n ** 9n;

export function supplySteps(sdk, { counter, o, node, p, x, current, rewards }) {
  return {
    getAvaxSupply: async () => {
      counter.calls++;
      const s = await sdk.avaxSupply.get(o);
      const { supply } = await node.platform("getCurrentSupply", {});
      const burned = wei(s.totalPBurned) + wei(s.totalCBurned) + wei(s.totalXBurned);
      check(wei(s.totalSupply) + burned === nano(supply), `totalSupply ${s.totalSupply} + burned != getCurrentSupply ${supply}`);
      check(wei(s.totalPBurned) > 0n && wei(s.totalCBurned) > 0n, `burns ${JSON.stringify(s)}`);
      // The X-Chain burned each of its txs' fee (avm.getTxFee's, by kind).
      const fees = await node.rpc("/ext/bc/X", "avm.getTxFee", {});
      const xFees = [...x.txs.values()].reduce((sum, t) => sum + BigInt(t.type === "CreateAssetTx" ? fees.createAssetTxFee : fees.txFee), 0n);
      check(xFees > 0n && wei(s.totalXBurned) === nano(xFees), `totalXBurned ${s.totalXBurned} != ${xFees} nAVAX of X-Chain fees`);
      check(wei(s.l1ValidatorFees) > 0n && wei(s.l1ValidatorFees) <= wei(s.totalPBurned), `l1ValidatorFees ${s.l1ValidatorFees} within totalPBurned ${s.totalPBurned}`);
      const stakers = [...current.values()];
      const staked = stakers.reduce((sum, x) => sum + BigInt(x.weight), 0n);
      check(wei(s.totalStaked) === nano(staked), `totalStaked ${s.totalStaked} != ${staked} nAVAX (getCurrentValidators)`);
      const paid = [...rewards.values()].flatMap((r) => r.utxos).reduce((sum, u) => sum + u.amount, 0n);
      const unpaid = stakers.reduce((sum, x) => sum + BigInt(x.potentialReward) + BigInt(x.accruedDelegateeReward ?? 0), 0n);
      check(wei(s.totalRewards) === nano(paid + unpaid), `totalRewards ${s.totalRewards} != ${paid} paid (getRewardUTXOs) + ${unpaid} unpaid (getCurrentValidators)`);
      check(wei(s.genesisUnlock) + wei(s.totalRewards) <= nano(supply), `genesisUnlock ${s.genesisUnlock} + rewards within the supply`);
      check(wei(s.circulatingSupply) <= wei(s.totalSupply), `circulating ${s.circulatingSupply} within total ${s.totalSupply}`);
      const last = p.blocks.get(p.height);
      check(new Date(s.lastUpdated).getTime() === last.time * 1000, `lastUpdated ${s.lastUpdated} != block ${p.height}'s time ${last.time}`);
    },
  };
}
