// Drives a running `firn devnet` with avalanchejs (the official Avalanche JS library), as a
// wallet or an explorer would drive an AvalancheGo node: reads validators, balances, blocks and
// supply, then builds, signs and issues a P-Chain BaseTx with avalanchejs's Etna (dynamic fee)
// builder and checks the balances moved by the amount and the fee avalanchejs computed.
//
// Inputs (environment): FIRN_URL (http://127.0.0.1:PORT), FIRN_PRIVATE_KEY (0x hex of a funded
// key), FIRN_TO (a P-fuji1… address). Prints one JSON line with what it saw; exits non-zero on
// any mismatch.

import {
  Context,
  TransferableOutput,
  addTxSignatures,
  info,
  networkIDs,
  pvm,
  secp256k1,
  utils,
} from '@avalabs/avalanchejs';

const url = process.env.FIRN_URL;
const privateKey = utils.hexToBuffer(process.env.FIRN_PRIVATE_KEY);
const to = process.env.FIRN_TO;
if (!url || !to) {
  throw new Error('FIRN_URL, FIRN_PRIVATE_KEY and FIRN_TO are required');
}

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

const pvmApi = new pvm.PVMApi(url);
const infoApi = new info.InfoApi(url);

// The sender's address, derived by avalanchejs from the key.
const { networkID: networkIDString } = await infoApi.getNetworkId();
const networkID = Number(networkIDString);
const hrp = networkIDs.getHRP(networkID);
const publicKey = secp256k1.getPublicKey(privateKey);
const from = utils.format('P', hrp, secp256k1.publicKeyBytesToAddress(publicKey));

// Validators.
const { validators } = await pvmApi.getCurrentValidators();
check(validators.length > 0, 'current validators');
for (const v of validators) {
  check(v.nodeID.startsWith('NodeID-'), `validator node ID ${v.nodeID}`);
  check(BigInt(v.weight) > 0n, `validator weight ${v.weight}`);
}
const sample = await pvmApi.sampleValidators({ size: 2 });
check(sample.validators.length === 2, 'sampleValidators');

// The node: its peers (the other validators), uptime, upgrades and VMs.
const { peers, numPeers } = await infoApi.peers();
check(peers.length > 0 && Number(numPeers) === peers.length, `peers ${numPeers}`);
check(
  peers.every((p) => validators.some((v) => v.nodeID === p.nodeID)),
  'every peer is a validator',
);
const { nodeID: ownID } = await infoApi.getNodeId();
check(!peers.some((p) => p.nodeID === ownID), 'the node is not its own peer');
const { rewardingStakePercentage } = await infoApi.uptime();
check(Number(rewardingStakePercentage) === 100, `uptime ${rewardingStakePercentage}`);
const upgrades = await infoApi.getUpgradesInfo();
check(Date.parse(upgrades.etnaTime) < Date.now(), `etnaTime ${upgrades.etnaTime}`);
const vms = await infoApi.getVMs();
check(JSON.stringify(vms).includes('platform'), `getVMs ${JSON.stringify(vms)}`);
const { ip } = await infoApi.getNodeIp();
check(typeof ip === 'string', 'getNodeIP');

// Supply, height and blocks (hex and JSON encodings agree on the chain's links).
const { supply } = await pvmApi.getCurrentSupply();
check(BigInt(supply) > 0n, 'current supply');
const { height: heightString } = await pvmApi.getHeight();
const height = Number(heightString);
const genesis = await pvmApi.callRpc('getBlockByHeight', { height: 0, encoding: 'json' });
check(genesis.block.height === 0, 'genesis block height');
const tip = await pvmApi.callRpc('getBlockByHeight', { height, encoding: 'json' });
check(tip.block.height === height, 'tip block height');
const byId = await pvmApi.callRpc('getBlock', { blockID: tip.block.id, encoding: 'hex' });
check(byId.block.startsWith('0x'), 'hex block');

// The Etna context, as avalanchejs reads it from a node (X-Chain asset and fees, chain IDs,
// the P-Chain's fee config); it agrees with the P-Chain's own staking asset.
const context = await Context.getContextFromURI(url);
const { assetID: avaxAssetID } = await pvmApi.getStakingAssetID({
  subnetID: '11111111111111111111111111111111LpoYY',
});
check(context.avaxAssetID === avaxAssetID, `AVAX ${context.avaxAssetID} != ${avaxAssetID}`);
check(context.networkID === networkID && context.hrp === hrp, 'network');
const feeState = await pvmApi.getFeeState();
check(feeState.price >= context.platformFeeConfig.minPrice, 'fee state price');

// Balances before.
const fromBefore = await pvmApi.getBalance({ addresses: [from] });
const toBefore = await pvmApi.getBalance({ addresses: [to] });
check(fromBefore.unlocked > 0n, `funded key ${from} has unlocked AVAX`);

// Build, sign and issue a transfer with avalanchejs's wallet.
const amount = 1_234_567_890n;
const { utxos } = await pvmApi.getUTXOs({ addresses: [from] });
const unsignedTx = pvm.newBaseTx(
  {
    feeState,
    fromAddressesBytes: [utils.bech32ToBytes(from)],
    outputs: [
      TransferableOutput.fromNative(avaxAssetID, amount, [utils.bech32ToBytes(to)]),
    ],
    utxos,
  },
  context,
);
const fee = pvm.calculateFee(
  unsignedTx.getTx(),
  context.platformFeeConfig.weights,
  feeState.price,
);
await addTxSignatures({ unsignedTx, privateKeys: [privateKey] });
const { txID } = await pvmApi.issueSignedTx(unsignedTx.getSignedTx());

// The devnet builds a block soon after a tx arrives.
let status = 'Processing';
for (let i = 0; i < 300 && status !== 'Committed'; i++) {
  ({ status } = await pvmApi.getTxStatus({ txID }));
  check(status === 'Committed' || status === 'Processing', `tx status ${status}`);
  if (status !== 'Committed') {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
check(status === 'Committed', `tx ${txID} committed`);
// getTx's hex decodes with avalanchejs's codec to the tx that was signed.
const issued = await pvmApi.getTx({ txID });
check(
  utils.bufferToHex(issued.toBytes()) === utils.bufferToHex(unsignedTx.getSignedTx().toBytes()),
  'getTx returns the issued tx',
);

const fromAfter = await pvmApi.getBalance({ addresses: [from] });
const toAfter = await pvmApi.getBalance({ addresses: [to] });
check(toAfter.balance - toBefore.balance === amount, 'recipient received the amount');
check(
  fromBefore.balance - fromAfter.balance === amount + fee,
  `sender paid amount + fee (${fromBefore.balance - fromAfter.balance} != ${amount + fee})`,
);
const { height: heightAfter } = await pvmApi.getHeight();
check(Number(heightAfter) > height, 'a block was built');

console.log(
  JSON.stringify({
    validators: validators.length,
    supply,
    height,
    heightAfter: Number(heightAfter),
    txID,
    amount: amount.toString(),
    fee: fee.toString(),
    from,
    to,
  }),
);
