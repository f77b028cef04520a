// An L1 created through P-Chain txs: avalanchejs (the official Avalanche JS library) issues a
// CreateSubnetTx and a CreateChainTx whose subnet-EVM genesis names all six precompiles; the
// devnet boots the chain, and the geth-style JSON-RPC at /ext/bc/<blockchainID>/rpc answers
// eth_getChainConfig, eth_feeConfig and eth_getActivePrecompilesAt with subnet-evm's shapes,
// while viem uses the precompiles. Driven by crates/firn/tests/it/evm_viem.rs (FIRN_URL,
// FIRN_KEY).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addTxSignatures, info, networkIDs, pvm, secp256k1, utils } from '@avalabs/avalanchejs';
import { createPublicClient, createWalletClient, defineChain, http, parseAbi, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const base = process.env.FIRN_URL;
const keyHex = process.env.FIRN_KEY;
const account = privateKeyToAccount(keyHex);
const admin = account.address.toLowerCase();
const bob = '0x000000000000000000000000000000000000b0b0';
const CHAIN_ID = 777001;
const SUBNET_EVM = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const feeConfig = {
  gasLimit: 15000000,
  targetBlockRate: 2,
  minBaseFee: 33000000000,
  targetGas: 15000000,
  baseFeeChangeDenominator: 36,
  minBlockGasCost: 0,
  maxBlockGasCost: 1000000,
  blockGasCostStep: 200000,
};
// As a user would write it: a checksummed address, and the precompiles' own fields.
const genesisConfig = {
  chainId: CHAIN_ID,
  homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0,
  constantinopleBlock: 0, petersburgBlock: 0, istanbulBlock: 0, muirGlacierBlock: 0,
  feeConfig,
  txAllowListConfig: { blockTimestamp: 0, adminAddresses: [account.address] },
  contractDeployerAllowListConfig: { blockTimestamp: 0, adminAddresses: [account.address] },
  contractNativeMinterConfig: { blockTimestamp: 0, adminAddresses: [account.address] },
  feeManagerConfig: { blockTimestamp: 0, adminAddresses: [account.address] },
  rewardManagerConfig: { blockTimestamp: 0, adminAddresses: [account.address] },
  warpConfig: { blockTimestamp: 0, quorumNumerator: 67 },
};
const genesis = {
  config: genesisConfig,
  alloc: { [account.address.slice(2)]: { balance: '0xd3c21bcecceda1000000' } },
  nonce: '0x0', timestamp: '0x0', extraData: '0x', gasLimit: '0xe4e1c0', difficulty: '0x0',
  mixHash: `0x${'00'.repeat(32)}`, coinbase: `0x${'00'.repeat(20)}`,
  number: '0x0', gasUsed: '0x0', parentHash: `0x${'00'.repeat(32)}`,
};

// What subnet-evm marshals for those configs: lower-case addresses, warp's fields always.
const allowList = { adminAddresses: [admin], blockTimestamp: 0 };
const expectedPrecompiles = {
  txAllowListConfig: allowList,
  contractDeployerAllowListConfig: allowList,
  contractNativeMinterConfig: allowList,
  feeManagerConfig: allowList,
  rewardManagerConfig: allowList,
  warpConfig: { blockTimestamp: 0, quorumNumerator: 67, requirePrimaryNetworkSigners: false },
};

async function issue(pvmApi, unsignedTx, privateKey, subnetAuth = false) {
  await addTxSignatures({ unsignedTx, privateKeys: [privateKey] });
  if (subnetAuth) {
    // avalanchejs maps only the inputs' addresses to credentials; the subnet owner's
    // signature goes in the last credential.
    const signature = await secp256k1.sign(unsignedTx.toBytes(), privateKey);
    unsignedTx.addSignatureAt(signature, unsignedTx.getCredentials().length - 1, 0);
  }
  const { txID } = await pvmApi.issueSignedTx(unsignedTx.getSignedTx());
  for (let i = 0; i < 300; i++) {
    const { status } = await pvmApi.getTxStatus({ txID });
    if (status === 'Committed') return txID;
    assert.equal(status, 'Processing', `tx ${txID}`);
    await sleep(100);
  }
  throw new Error(`tx ${txID} not committed`);
}

// CreateSubnetTx then CreateChainTx, built and signed by avalanchejs; returns the blockchain ID.
async function createL1() {
  const privateKey = utils.hexToBuffer(keyHex);
  const pvmApi = new pvm.PVMApi(base);
  const infoApi = new info.InfoApi(base);
  const networkID = Number((await infoApi.getNetworkId()).networkID);
  const hrp = networkIDs.getHRP(networkID);
  const me = utils.bech32ToBytes(
    utils.format('P', hrp, secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(privateKey))),
  );
  const context = Object.freeze({
    networkID,
    hrp,
    xBlockchainID: (await infoApi.getBlockchainId('X')).blockchainID,
    pBlockchainID: (await infoApi.getBlockchainId('P')).blockchainID,
    cBlockchainID: (await infoApi.getBlockchainId('C')).blockchainID,
    avaxAssetID: (await pvmApi.getStakingAssetID({ subnetID: '11111111111111111111111111111111LpoYY' })).assetID,
    baseTxFee: 1_000_000n,
    createAssetTxFee: 10_000_000n,
    platformFeeConfig: await pvmApi.getFeeConfig(),
  });
  const utxosOf = async () => (await pvmApi.getUTXOs({ addresses: [utils.format('P', hrp, me)] })).utxos;
  const subnetId = await issue(
    pvmApi,
    pvm.newCreateSubnetTx(
      { feeState: await pvmApi.getFeeState(), fromAddressesBytes: [me], utxos: await utxosOf(), subnetOwners: [me] },
      context,
    ),
    privateKey,
  );
  return issue(
    pvmApi,
    pvm.newCreateChainTx(
      {
        feeState: await pvmApi.getFeeState(),
        fromAddressesBytes: [me],
        utxos: await utxosOf(),
        chainName: 'viemL1',
        subnetId,
        vmId: SUBNET_EVM,
        fxIds: [],
        genesisData: genesis,
        subnetAuth: [0],
      },
      context,
    ),
    privateKey,
    true,
  );
}

const blockchainID = await createL1();
const rpc = `${base}/ext/bc/${blockchainID}/rpc`;
const chain = defineChain({
  id: CHAIN_ID,
  name: 'firn devnet L1',
  nativeCurrency: { name: 'Test', symbol: 'TST', decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
});
const publicClient = createPublicClient({ chain, transport: http(rpc), pollingInterval: 50 });
const wallet = createWalletClient({ account, chain, transport: http(rpc) });
// The devnet boots the chain shortly after the CreateChainTx is accepted.
for (let i = 0; ; i++) {
  try {
    await publicClient.getChainId();
    break;
  } catch (error) {
    if (i > 100) throw error;
    await sleep(100);
  }
}

test('the L1 answers with its genesis chain ID and funds', async () => {
  assert.equal(await publicClient.getChainId(), CHAIN_ID);
  assert.equal(await publicClient.getBalance({ address: account.address }), 1_000_000n * 10n ** 18n);
});

test('eth_getChainConfig: the chain config with its precompiles and upgrades', async () => {
  const config = await publicClient.request({ method: 'eth_getChainConfig', params: [] });
  assert.deepEqual(config, {
    chainId: CHAIN_ID,
    homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0,
    constantinopleBlock: 0, petersburgBlock: 0, istanbulBlock: 0, muirGlacierBlock: 0,
    feeConfig,
    subnetEVMTimestamp: 0, durangoTimestamp: 0, etnaTimestamp: 0, fortunaTimestamp: 0,
    ...expectedPrecompiles,
    upgrades: {},
  });
});

test('eth_feeConfig: the genesis fee config, lastChangedAt 0', async () => {
  assert.deepEqual(await publicClient.request({ method: 'eth_feeConfig', params: [] }), {
    feeConfig,
    lastChangedAt: 0,
  });
  assert.deepEqual(await publicClient.request({ method: 'eth_feeConfig', params: ['latest'] }), {
    feeConfig,
    lastChangedAt: 0,
  });
});

test('eth_getActivePrecompilesAt: every genesis precompile', async () => {
  assert.deepEqual(
    await publicClient.request({ method: 'eth_getActivePrecompilesAt', params: [] }),
    expectedPrecompiles,
  );
  const rules = await publicClient.request({ method: 'eth_getActiveRulesAt', params: [] });
  assert.deepEqual(Object.keys(rules.precompiles).sort(), Object.keys(expectedPrecompiles).sort());
  assert.equal(rules.ethRules.ChainID, CHAIN_ID);
});

test('the precompiles work: allow list roles, native minter, fee config', async () => {
  const allowListAbi = parseAbi(['function readAllowList(address) view returns (uint256)']);
  const role = (address, who) =>
    publicClient.readContract({ address, abi: allowListAbi, functionName: 'readAllowList', args: [who] });
  assert.equal(await role('0x0200000000000000000000000000000000000002', account.address), 2n);
  assert.equal(await role('0x0200000000000000000000000000000000000002', bob), 0n);
  assert.equal(await role('0x0200000000000000000000000000000000000000', account.address), 2n);

  const minter = '0x0200000000000000000000000000000000000001';
  const minterAbi = parseAbi([
    'function mintNativeCoin(address addr, uint256 amount)',
    'event NativeCoinMinted(address indexed sender, address indexed recipient, uint256 amount)',
  ]);
  const { request } = await publicClient.simulateContract({
    account, address: minter, abi: minterAbi, functionName: 'mintNativeCoin', args: [bob, parseEther('7')],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: await wallet.writeContract(request) });
  assert.equal(receipt.status, 'success');
  assert.equal(await publicClient.getBalance({ address: bob }), parseEther('7'));

  const feeAbi = parseAbi([
    'function getFeeConfig() view returns (uint256 gasLimit, uint256 targetBlockRate, uint256 minBaseFee, uint256 targetGas, uint256 baseFeeChangeDenominator, uint256 minBlockGasCost, uint256 maxBlockGasCost, uint256 blockGasCostStep)',
  ]);
  const fees = await publicClient.readContract({
    address: '0x0200000000000000000000000000000000000003', abi: feeAbi, functionName: 'getFeeConfig',
  });
  assert.equal(fees[0], BigInt(feeConfig.gasLimit));
  assert.equal(fees[2], BigInt(feeConfig.minBaseFee));
});
