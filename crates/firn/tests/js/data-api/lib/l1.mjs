// The Data API's L1 validators against the node: every L1 the node's getBlockchains names,
// its validators (getCurrentValidators of the L1: active and inactive ones) with their
// weight, remaining balance, BLS key and owners, one a page, at the node's height.
import { check, pages, sameSet } from "./rpc.mjs";

const P_CHAIN = "11111111111111111111111111111111LpoYY";
const bare = (addresses) => addresses.map((a) => a.replace(/^P-/, ""));

// `ctx`: { counter, o, node, p, blockchains }.
export function l1Steps(d, ctx) {
  const { counter, o, node, p, blockchains } = ctx;
  return {
    listL1Validators: async () => {
      const subnets = [...new Set(blockchains.filter((c) => c.subnetID !== P_CHAIN).map((c) => c.subnetID))];
      let seen = 0;
      for (const subnetId of subnets) {
        const { validators } = await node.platform("getCurrentValidators", { subnetID: subnetId });
        const l1 = validators.filter((v) => v.validationID);
        if (l1.length === 0) continue;
        const got = await pages(counter, "l1Validators", () => d.primaryNetwork.listL1Validators({ network: "fuji", subnetId, includeInactiveL1Validators: true, pageSize: 1 }, o), "validators", Math.min(2, l1.length));
        // A validation its manager removed (weight 0) is gone from the node, but the Data API
        // still lists it with includeInactiveL1Validators, at weight and balance 0.
        const current = new Set(l1.map((v) => v.validationID));
        for (const v of got.filter((v) => !current.has(v.validationId))) {
          counter.calls++;
          const known = await node.platform("getL1Validator", { validationID: v.validationId }).then(() => true, () => false);
          check(!known && String(v.weight) === "0" && String(v.remainingBalance) === "0", `L1 validator ${v.validationId} listed, yet not a removed one (weight ${v.weight}, known to the node: ${known})`);
        }
        const listed = got.filter((v) => current.has(v.validationId));
        sameSet(listed.map((v) => v.validationId), [...current], `L1 validators of ${subnetId} (getCurrentValidators)`);
        for (const v of listed) {
          const n = l1.find((x) => x.validationID === v.validationId);
          const what = `L1 validator ${v.validationId}`;
          check(v.nodeId === n.nodeID && v.subnetId === subnetId, `${what} node/subnet`);
          check(String(v.weight) === n.weight, `${what} weight ${v.weight} != ${n.weight}`);
          check(String(v.remainingBalance) === n.balance, `${what} remainingBalance ${v.remainingBalance} != ${n.balance}`);
          check(JSON.stringify(v.remainingBalanceOwner.addresses) === JSON.stringify(bare(n.remainingBalanceOwner.addresses ?? [])) && String(v.remainingBalanceOwner.threshold) === String(n.remainingBalanceOwner.threshold), `${what} remainingBalanceOwner ${JSON.stringify(v.remainingBalanceOwner)} != ${JSON.stringify(n.remainingBalanceOwner)}`);
          check(JSON.stringify(v.deactivationOwner.addresses) === JSON.stringify(bare(n.deactivationOwner.addresses ?? [])) && String(v.deactivationOwner.threshold) === String(n.deactivationOwner.threshold), `${what} deactivationOwner`);
          check(v.creationTimestamp <= Number(p.blocks.get(p.height).time), `${what} creationTimestamp`);
        }
        // One validation by its ID, as getL1Validator has it.
        const [first] = l1;
        const one = await node.platform("getL1Validator", { validationID: first.validationID });
        counter.calls++;
        const r = await d.primaryNetwork.listL1Validators({ network: "fuji", l1ValidationId: first.validationID, includeInactiveL1Validators: true }, o);
        const [v] = r.result.validators;
        check(v?.validationId === first.validationID && String(v.remainingBalance) === one.balance && String(v.weight) === one.weight, `getL1Validator ${first.validationID}: ${JSON.stringify(v)} != ${JSON.stringify(one)}`);
        check(r.result.blockHeight === String(p.height) && one.height === String(p.height), `blockHeight ${r.result.blockHeight}, getL1Validator at ${one.height}, node ${p.height}`);
        // The SDKs' `blsCredentials` is a schema-less object they empty: read the raw answer.
        const raw = await (await fetch(`${o.serverURL}/v1/networks/fuji/l1Validators?l1ValidationId=${first.validationID}&includeInactiveL1Validators=true`)).json();
        check(raw.validators[0].blsCredentials.publicKey === first.publicKey, `${first.validationID} BLS key ${raw.validators[0].blsCredentials.publicKey} != ${first.publicKey}`);
        seen += got.length;
      }
      check(seen >= 2, `the history gives its L1 at least two validators (${seen})`);
    },
  };
}
