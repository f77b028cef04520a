// Drives a running `firn devnet`'s C-Chain atomic txs with avalanchejs, as a wallet moves AVAX
// between the C-Chain and the P- and X-Chains on an AvalancheGo node: P → C (P ExportTx, then
// the C-Chain ImportTx avalanchejs's evm builder makes at the node's base fee), C → X (the evm
// ExportTx with the account's nonce, then the X ImportTx) and X → C. Every result is read back
// through avax.getUTXOs, avax.getAtomicTx(Status), avm.getUTXOs, eth_getBalance and
// eth_getTransactionCount.
//
// Inputs (environment): FIRN_URL, FIRN_PRIVATE_KEY (0x hex of a funded key), FIRN_EVM_ADDRESS
// (its EVM address). Prints one JSON line with what it saw; exits non-zero on any mismatch.

import {
  Context,
  TransferableOutput,
  addTxSignatures,
  avm,
  evm,
  pvm,
  secp256k1,
  utils,
} from '@avalabs/avalanchejs';

const url = process.env.FIRN_URL;
const privateKey = utils.hexToBuffer(process.env.FIRN_PRIVATE_KEY);
const ethAddress = process.env.FIRN_EVM_ADDRESS;
if (!url || !ethAddress) {
  throw new Error('FIRN_URL, FIRN_PRIVATE_KEY and FIRN_EVM_ADDRESS are required');
}

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const X2C = 1_000_000_000n;

const context = await Context.getContextFromURI(url);
const evmApi = new evm.EVMApi(url);
const avmApi = new avm.AVMApi(url);
const pvmApi = new pvm.PVMApi(url);
const fromBytes = secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(privateKey));
const ethBytes = utils.hexToBuffer(ethAddress);
const cFrom = utils.format('C', context.hrp, fromBytes);
const xFrom = utils.format('X', context.hrp, fromBytes);
const pFrom = utils.format('P', context.hrp, fromBytes);

async function eth(method, params) {
  const response = await fetch(`${url}/ext/bc/C/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const { result, error } = await response.json();
  check(!error, `${method}: ${JSON.stringify(error)}`);
  return result;
}

const weiBalance = async () => BigInt(await eth('eth_getBalance', [ethAddress, 'latest']));
const nonce = async () => BigInt(await eth('eth_getTransactionCount', [ethAddress, 'latest']));
const xBalance = async () =>
  BigInt((await avmApi.callRpc('getBalance', { address: xFrom, assetID: 'AVAX' })).balance);

// The base fee in nAVAX per gas, rounded up, as a wallet prices an atomic tx.
async function navaxPerGas() {
  const wei = await evmApi.getBaseFee();
  return (wei + X2C - 1n) / X2C;
}

async function until(what, done) {
  for (let i = 0; i < 300; i++) {
    if (await done()) {
      return;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Signs and issues a C-Chain atomic tx, waits for acceptance, and checks avax.getAtomicTx
// answers the same bytes with the accepting height.
async function issueC(unsignedTx) {
  await addTxSignatures({ unsignedTx, privateKeys: [privateKey] });
  const signed = unsignedTx.getSignedTx();
  const { txID } = await evmApi.issueSignedTx(signed);
  let status;
  await until(`C-Chain atomic tx ${txID}`, async () => {
    status = await evmApi.getAtomicTxStatus(txID);
    return status.status === 'Accepted';
  });
  const read = await evmApi.getAtomicTx({ txID });
  check(
    utils.bufferToHex(read.tx.toBytes()) === utils.bufferToHex(signed.toBytes()),
    `avax.getAtomicTx returns the issued tx ${txID}`,
  );
  check(read.blockHeight === BigInt(status.blockHeight), `height ${read.blockHeight}`);
  return txID;
}

async function issueX(unsignedTx) {
  await addTxSignatures({ unsignedTx, privateKeys: [privateKey] });
  const { txID } = await avmApi.issueSignedTx(unsignedTx.getSignedTx());
  await until(`X-Chain tx ${txID}`, async () => {
    const { status } = await avmApi.callRpc('getTxStatus', { txID });
    return status === 'Accepted';
  });
  return txID;
}

async function issueP(unsignedTx) {
  await addTxSignatures({ unsignedTx, privateKeys: [privateKey] });
  const { txID } = await pvmApi.issueSignedTx(unsignedTx.getSignedTx());
  await until(`P-Chain tx ${txID}`, async () => {
    const { status } = await pvmApi.getTxStatus({ txID });
    return status === 'Committed';
  });
  return txID;
}

// Imports every UTXO `source` exported to the key, checks the account got them less the fee.
async function importToC(source, sourceId, expected) {
  const { utxos } = await evmApi.getUTXOs({ addresses: [cFrom], sourceChain: source });
  check(utxos.length === 1, `atomic UTXOs from ${source} on C: ${utxos.length}`);
  const price = await navaxPerGas();
  const tx = evm.newImportTxFromBaseFee(context, ethBytes, [fromBytes], utxos, sourceId, price);
  const fee = price * utils.costCorethTx(tx);
  const before = await weiBalance();
  const txID = await issueC(tx);
  const credited = (await weiBalance()) - before;
  check(credited === (expected - fee) * X2C, `C credited ${credited} for ${expected} - ${fee}`);
  const { utxos: left } = await evmApi.getUTXOs({ addresses: [cFrom], sourceChain: source });
  check(left.length === 0, 'the atomic UTXO was consumed');
  return { txID, fee };
}

// 1. P → C.
const toC = 2_000_000_000n;
const { utxos: pUtxos } = await pvmApi.getUTXOs({ addresses: [pFrom] });
const exportP = await issueP(
  pvm.newExportTx(
    {
      destinationChainId: context.cBlockchainID,
      feeState: await pvmApi.getFeeState(),
      fromAddressesBytes: [fromBytes],
      outputs: [TransferableOutput.fromNative(context.avaxAssetID, toC, [fromBytes])],
      utxos: pUtxos,
    },
    context,
  ),
);
const importFromP = await importToC('P', context.pBlockchainID, toC);

// 2. C → X: the export debits amount and fee and uses the account's nonce.
const toX = 1_000_000_000n;
const price = await navaxPerGas();
const nonceBefore = await nonce();
const exportTx = evm.newExportTxFromBaseFee(
  context,
  price,
  toX,
  context.xBlockchainID,
  ethBytes,
  [fromBytes],
  nonceBefore,
);
const exportFee = evm.estimateExportCost(
  context,
  price,
  toX,
  context.xBlockchainID,
  ethBytes,
  [fromBytes],
  nonceBefore,
);
const beforeExport = await weiBalance();
const exportC = await issueC(exportTx);
const debited = beforeExport - (await weiBalance());
check(debited === (toX + exportFee) * X2C, `C debited ${debited}`);
check((await nonce()) === nonceBefore + 1n, 'the export used the nonce');
const { utxos: onX } = await avmApi.getUTXOs({ addresses: [xFrom], sourceChain: 'C' });
check(onX.length === 1, `atomic UTXOs from C on X: ${onX.length}`);
const xBefore = await xBalance();
const importX = await issueX(
  avm.newImportTx(context, context.cBlockchainID, onX, [fromBytes], [fromBytes]),
);
check((await xBalance()) - xBefore === toX - context.baseTxFee, 'X received the export');

// 3. X → C.
const back = 1_500_000_000n;
const { utxos: xUtxos } = await avmApi.getUTXOs({ addresses: [xFrom] });
const exportX = await issueX(
  avm.newExportTx(context, context.cBlockchainID, [fromBytes], xUtxos, [
    TransferableOutput.fromNative(context.avaxAssetID, back, [fromBytes]),
  ]),
);
const importFromX = await importToC('X', context.xBlockchainID, back);

console.log(
  JSON.stringify({
    exportP,
    importC: importFromP.txID,
    exportC,
    importX,
    exportX,
    importCFromX: importFromX.txID,
    importFee: importFromP.fee.toString(),
    exportFee: exportFee.toString(),
  }),
);
