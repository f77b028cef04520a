// Drives a running `firn devnet`'s X-Chain with avalanchejs, as a wallet would drive an
// AvalancheGo node: reads its context (getContextFromURI: avm.getAssetDescription, avm.getTxFee,
// info), sends AVAX with a BaseTx, creates a fixed-cap asset (a CreateAssetTx built from
// avalanchejs's serializable types) and sends some of it, creates a variable-cap asset and mints
// it (an OperationTx), moves AVAX to the P-Chain (X ExportTx,
// P ImportTx) and back (P ExportTx, X ImportTx), and checks every balance, UTXO and tx it reads
// back through avm.*, platform.* and getUTXOs with sourceChain.
//
// Inputs (environment): FIRN_URL, FIRN_PRIVATE_KEY (0x hex of a funded key), FIRN_TO_KEY (0x hex
// of another funded key). Prints one JSON line with what it saw; exits non-zero on any mismatch.

import { createHash } from 'node:crypto';

import {
  Byte,
  Context,
  Credential,
  Signature,
  Id,
  Input,
  Int,
  MintOperation,
  MintOutput,
  OutputOwners,
  Stringpr,
  TransferOutput,
  TransferableOutput,
  BigIntPr,
  addTxSignatures,
  avaxSerial,
  avm,
  avmSerial,
  pvm,
  secp256k1,
  utils,
} from '@avalabs/avalanchejs';

const url = process.env.FIRN_URL;
const privateKey = utils.hexToBuffer(process.env.FIRN_PRIVATE_KEY);
const toKey = utils.hexToBuffer(process.env.FIRN_TO_KEY);
if (!url) {
  throw new Error('FIRN_URL, FIRN_PRIVATE_KEY and FIRN_TO_KEY are required');
}

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const context = await Context.getContextFromURI(url);
check(context.baseTxFee === 1_000_000n, `baseTxFee ${context.baseTxFee}`);
check(context.createAssetTxFee === 10_000_000n, `createAssetTxFee ${context.createAssetTxFee}`);
check(context.xBlockchainID.length > 0 && context.avaxAssetID.length > 0, 'context IDs');

const avmApi = new avm.AVMApi(url);
const pvmApi = new pvm.PVMApi(url);
const addressBytes = (key) => secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(key));
const fromBytes = addressBytes(privateKey);
const toBytes = addressBytes(toKey);
const xFrom = utils.format('X', context.hrp, fromBytes);
const xTo = utils.format('X', context.hrp, toBytes);
const pFrom = utils.format('P', context.hrp, fromBytes);

async function xBalance(address, asset = 'AVAX') {
  const { balance } = await avmApi.callRpc('getBalance', { address, assetID: asset });
  return BigInt(balance);
}

async function xUtxos(address, sourceChain) {
  const args = sourceChain ? { addresses: [address], sourceChain } : { addresses: [address] };
  const { utxos } = await avmApi.getUTXOs(args);
  return utxos;
}

async function waitX(txID) {
  let status = 'Unknown';
  for (let i = 0; i < 300 && status !== 'Accepted'; i++) {
    ({ status } = await avmApi.callRpc('getTxStatus', { txID }));
    if (status !== 'Accepted') {
      await sleep(100);
    }
  }
  check(status === 'Accepted', `X-Chain tx ${txID} accepted`);
}

// Signs and issues on the X-Chain, waits for acceptance, and checks getTx returns the same bytes.
async function issueX(unsignedTx) {
  await addTxSignatures({ unsignedTx, privateKeys: [privateKey] });
  const signed = unsignedTx.getSignedTx();
  const { txID } = await avmApi.issueSignedTx(signed);
  await waitX(txID);
  const read = await avmApi.getTx({ txID });
  check(
    utils.bufferToHex(read.toBytes()) === utils.bufferToHex(signed.toBytes()),
    `avm.getTx returns the issued tx ${txID}`,
  );
  return txID;
}

// avalanchejs 5.2 has no signer for a CreateAssetTx or an OperationTx (they are not among its
// AVMTx types), so such a tx is written with its AVM codec (`unsignedBytes`) and signed with its
// secp256k1: one credential per input and operation (`credentials`), each owned by the key
// alone. Issues it, waits for acceptance; returns its ID and signed hex.
const manager = avmSerial.getAVMManager();
const codec = manager.getDefaultCodec();
const u32 = (n) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
};
async function issueByHand(unsignedBytes, credentials) {
  const signature = await secp256k1.signHash(
    new Uint8Array(createHash('sha256').update(unsignedBytes).digest()),
    privateKey,
  );
  const creds = Array.from({ length: credentials }, () => new Credential([new Signature(signature)]));
  const signedBytes = utils.concatBytes(unsignedBytes, u32(creds.length), ...creds.map((c) => codec.PackPrefix(c)));
  const signedHex = utils.bufferToHex(utils.addChecksum(signedBytes));
  const { txID } = await avmApi.callRpc('issueTx', { tx: signedHex, encoding: 'hex' });
  await waitX(txID);
  return { txID, signedHex };
}

async function issueP(unsignedTx) {
  await addTxSignatures({ unsignedTx, privateKeys: [privateKey] });
  const { txID } = await pvmApi.issueSignedTx(unsignedTx.getSignedTx());
  let status = 'Processing';
  for (let i = 0; i < 300 && status !== 'Committed'; i++) {
    ({ status } = await pvmApi.getTxStatus({ txID }));
    if (status !== 'Committed') {
      await sleep(100);
    }
  }
  check(status === 'Committed', `P-Chain tx ${txID} committed`);
  return txID;
}

// 1. AVAX with a BaseTx.
const amount = 1_500_000_000n;
const fromBefore = await xBalance(xFrom);
const toBefore = await xBalance(xTo);
const send = await issueX(
  avm.newBaseTx(
    context,
    [fromBytes],
    await xUtxos(xFrom),
    [TransferableOutput.fromNative(context.avaxAssetID, amount, [toBytes])],
  ),
);
check((await xBalance(xTo)) - toBefore === amount, 'recipient received the AVAX');
check(
  fromBefore - (await xBalance(xFrom)) === amount + context.baseTxFee,
  'sender paid amount + baseTxFee',
);

// 2. A fixed-cap asset: a CreateAssetTx whose inputs pay the CreateAssetTx fee, then a transfer.
const funding = avm.newBaseTx(
  { ...context, baseTxFee: context.createAssetTxFee },
  [fromBytes],
  await xUtxos(xFrom),
  [],
);
const supply = 1_000_000n;
const createAsset = new avmSerial.CreateAssetTx(
  funding.getTx().baseTx,
  new Stringpr('Firn Test Token'),
  new Stringpr('FTT'),
  new Byte(new Uint8Array([3])),
  [
    new avmSerial.InitialState(new Int(0), [
      new TransferOutput(new BigIntPr(supply), OutputOwners.fromNative([fromBytes])),
    ]),
  ],
);
const { txID: assetID, signedHex } = await issueByHand(
  manager.packCodec(createAsset),
  funding.getTx().baseTx.inputs.length,
);
const stored = await avmApi.callRpc('getTx', { txID: assetID, encoding: 'hex' });
check(stored.tx === signedHex, 'avm.getTx returns the CreateAssetTx as issued');
const description = await avmApi.getAssetDescription(assetID);
check(description.symbol === 'FTT' && Number(description.denomination) === 3, 'asset description');
check((await xBalance(xFrom, assetID)) === supply, 'the creator holds the supply');
const assetSend = await issueX(
  avm.newBaseTx(context, [fromBytes], await xUtxos(xFrom), [
    TransferableOutput.fromNative(assetID, 2_500n, [toBytes]),
  ]),
);
check((await xBalance(xTo, assetID)) === 2_500n, 'recipient received the asset');
const { balances } = await avmApi.getAllBalances({ address: xTo });
check(
  balances.some((b) => b.asset === assetID && BigInt(b.balance) === 2_500n),
  `getAllBalances ${JSON.stringify(balances)}`,
);

// 2b. A variable-cap asset: a CreateAssetTx whose initial state is a mint right, then an
// OperationTx that mints to the recipient and keeps the right.
const mintFunding = avm.newBaseTx(
  { ...context, baseTxFee: context.createAssetTxFee },
  [fromBytes],
  await xUtxos(xFrom),
  [],
);
const variable = new avmSerial.CreateAssetTx(
  mintFunding.getTx().baseTx,
  new Stringpr('Firn Mintable'),
  new Stringpr('FMT'),
  new Byte(new Uint8Array([0])),
  [new avmSerial.InitialState(new Int(0), [new MintOutput(OutputOwners.fromNative([fromBytes]))])],
);
const { txID: mintableID } = await issueByHand(
  manager.packCodec(variable),
  mintFunding.getTx().baseTx.inputs.length,
);
// The mint right follows the tx's own outputs.
const rightIndex = mintFunding.getTx().baseTx.outputs.length;
const opFunding = avm.newBaseTx(context, [fromBytes], await xUtxos(xFrom), []);
const minted = 777n;
// avalanchejs 5.2 does not export TransferableOp either: the tx is packed without operations,
// and its one operation (asset, the mint right's UTXO ID, the MintOperation with its type ID)
// written after the base tx in the codec's layout.
const withoutOps = manager.packCodec(new avmSerial.OperationTx(opFunding.getTx().baseTx, []));
const mintOp = new MintOperation(
  Input.fromNative([0]),
  new MintOutput(OutputOwners.fromNative([fromBytes])),
  new TransferOutput(new BigIntPr(minted), OutputOwners.fromNative([toBytes])),
);
const mintBytes = utils.concatBytes(
  withoutOps.slice(0, withoutOps.length - 4),
  u32(1),
  Id.fromString(mintableID).toBytes(),
  u32(1),
  avaxSerial.UTXOID.fromNative(mintableID, rightIndex).toBytes(codec),
  codec.PackPrefix(mintOp),
);
const { txID: mintTx, signedHex: mintHex } = await issueByHand(
  mintBytes,
  opFunding.getTx().baseTx.inputs.length + 1,
);
const mintRead = await avmApi.callRpc('getTx', { txID: mintTx, encoding: 'hex' });
check(mintRead.tx === mintHex, 'avm.getTx returns the OperationTx as issued');
check((await xBalance(xTo, mintableID)) === minted, 'the recipient holds what was minted');
const mintable = await avmApi.getAssetDescription(mintableID);
check(mintable.symbol === 'FMT', `variable-cap asset description ${JSON.stringify(mintable)}`);
const rights = (await xUtxos(xFrom)).filter((u) => u.getAssetId() === mintableID);
check(rights.length === 1, `the minter keeps one mint right: ${rights.length}`);

// 3. X → P: export, see it in platform.getUTXOs with sourceChain X, import it.
const moved = 3_000_000_000n;
const exportX = await issueX(
  avm.newExportTx(context, context.pBlockchainID, [fromBytes], await xUtxos(xFrom), [
    TransferableOutput.fromNative(context.avaxAssetID, moved, [fromBytes]),
  ]),
);
const { utxos: atomicOnP } = await pvmApi.getUTXOs({ addresses: [pFrom], sourceChain: 'X' });
check(atomicOnP.length === 1, `atomic UTXOs on P: ${atomicOnP.length}`);
const pBefore = (await pvmApi.getBalance({ addresses: [pFrom] })).unlocked;
const feeState = await pvmApi.getFeeState();
const importP = pvm.newImportTx(
  {
    feeState,
    fromAddressesBytes: [fromBytes],
    sourceChainId: context.xBlockchainID,
    toAddressesBytes: [fromBytes],
    utxos: atomicOnP,
  },
  context,
);
const importFee = pvm.calculateFee(
  importP.getTx(),
  context.platformFeeConfig.weights,
  feeState.price,
);
const importPId = await issueP(importP);
const pAfter = (await pvmApi.getBalance({ addresses: [pFrom] })).unlocked;
check(pAfter - pBefore === moved - importFee, `P received ${pAfter - pBefore}`);

// 4. P → X: export, see it in avm.getUTXOs with sourceChain P, import it.
const back = 1_000_000_000n;
const { utxos: pUtxos } = await pvmApi.getUTXOs({ addresses: [pFrom] });
const exportPId = await issueP(
  pvm.newExportTx(
    {
      destinationChainId: context.xBlockchainID,
      feeState: await pvmApi.getFeeState(),
      fromAddressesBytes: [fromBytes],
      outputs: [TransferableOutput.fromNative(context.avaxAssetID, back, [fromBytes])],
      utxos: pUtxos,
    },
    context,
  ),
);
const atomicOnX = await xUtxos(xFrom, 'P');
check(atomicOnX.length === 1, `atomic UTXOs on X: ${atomicOnX.length}`);
const xBefore = await xBalance(xFrom);
const importX = await issueX(
  avm.newImportTx(context, context.pBlockchainID, atomicOnX, [fromBytes], [fromBytes]),
);
check(
  (await xBalance(xFrom)) - xBefore === back - context.baseTxFee,
  'X received the import less the fee',
);
check((await xUtxos(xFrom, 'P')).length === 0, 'the atomic UTXO was consumed');

console.log(
  JSON.stringify({
    send,
    assetID,
    assetSend,
    mintableID,
    mintTx,
    exportX,
    importP: importPId,
    exportP: exportPId,
    importX,
    importFee: importFee.toString(),
  }),
);
