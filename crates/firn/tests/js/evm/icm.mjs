// Teleporter with viem on `firn up`: a message sent on the C-Chain is delivered on the L1 by
// firn's relayer and executed, its receipt comes back on a message the other way; a message
// into a closed inbox fails its execution, is retried with viem once the inbox opens, and
// executes. The Data API lists each with both sides and the right status.
//
// FIRN_RPC (C-Chain), FIRN_L1_RPC, FIRN_KEY (funded on both), FIRN_API_URL, FIRN_ARTIFACTS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicClient, createWalletClient, defineChain, http, parseAbi, parseEventLogs, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const MESSENGER = "0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf";
const WARP = "0x0200000000000000000000000000000000000005";
const account = privateKeyToAccount(process.env.FIRN_KEY);
const api = process.env.FIRN_API_URL;

const abi = parseAbi([
  "struct Fee { address feeTokenAddress; uint256 amount; }",
  "struct Receipt { uint256 receivedMessageNonce; address relayerRewardAddress; }",
  "struct Message { uint256 messageNonce; address originSenderAddress; bytes32 destinationBlockchainID; address destinationAddress; uint256 requiredGasLimit; address[] allowedRelayerAddresses; Receipt[] receipts; bytes message; }",
  "struct Input { bytes32 destinationBlockchainID; address destinationAddress; Fee feeInfo; uint256 requiredGasLimit; address[] allowedRelayerAddresses; bytes message; }",
  "function sendCrossChainMessage(Input messageInput) returns (bytes32)",
  "function retryMessageExecution(bytes32 sourceBlockchainID, Message message)",
  "function messageReceived(bytes32 messageID) view returns (bool)",
  "function getBlockchainID() view returns (bytes32)",
  "function setClosed(bool closed)",
  "function received() view returns (uint256)",
  "event SendCrossChainMessage(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, Message message, Fee feeInfo)",
  "event MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID)",
  "event MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, Message message)",
  "event ReceiptReceived(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, address indexed relayerRewardAddress, Fee feeInfo)",
]);
const inbox = JSON.parse(readFileSync(join(process.env.FIRN_ARTIFACTS, "FirnTeleporterInbox.json"), "utf8"));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/// Polls `probe` until it returns something truthy (60 s at most).
async function until(what, probe) {
  for (let i = 0; i < 600; i++) {
    const got = await probe();
    if (got) return got;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function connect(url) {
  const probe = createPublicClient({ transport: http(url) });
  const id = await probe.getChainId();
  const chain = defineChain({
    id,
    name: `firn ${id}`,
    nativeCurrency: { name: "AVAX", symbol: "AVAX", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const client = createPublicClient({ chain, transport: http(url) });
  const wallet = createWalletClient({ account, chain, transport: http(url) });
  const blockchainID = await client.readContract({ address: WARP, abi, functionName: "getBlockchainID" });
  return { client, wallet, blockchainID };
}

async function send(side, hash) {
  const receipt = await side.client.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

async function write(side, address, functionName, args) {
  return send(side, await side.wallet.writeContract({ address, abi, functionName, args }));
}

async function deployInbox(side) {
  const hash = await side.wallet.deployContract({ abi: inbox.abi, bytecode: inbox.bytecode, args: [MESSENGER] });
  return (await send(side, hash)).contractAddress;
}

/// Sends `text` from `from` to `to`'s inbox; the sent message's ID and struct.
async function message(from, to, address, text) {
  const input = {
    destinationBlockchainID: to.blockchainID,
    destinationAddress: address,
    feeInfo: { feeTokenAddress: "0x0000000000000000000000000000000000000000", amount: 0n },
    requiredGasLimit: 100000n,
    allowedRelayerAddresses: [],
    message: toHex(text),
  };
  const receipt = await write(from, MESSENGER, "sendCrossChainMessage", [input]);
  const [sent] = parseEventLogs({ abi, logs: receipt.logs, eventName: "SendCrossChainMessage" });
  return { id: sent.args.messageID, message: sent.args.message };
}

const delivered = (side, id) =>
  until(`delivery of ${id}`, () => side.client.readContract({ address: MESSENGER, abi, functionName: "messageReceived", args: [id] }));

async function events(side, eventName, id) {
  const logs = await side.client.getLogs({ address: MESSENGER, fromBlock: 0n, toBlock: "latest" });
  return parseEventLogs({ abi, logs, eventName }).filter((l) => l.args.messageID === id);
}

/// The Data API's message once `ready` says it is complete.
function listed(id, ready) {
  return until(`the Data API to list ${id}`, async () => {
    const response = await fetch(`${api}/v1/icm/messages/${id.slice(2)}`);
    if (response.status !== 200) return undefined;
    const m = await response.json();
    return ready(m) ? m : undefined;
  });
}

test("a message sent with viem is relayed, executed, its receipt comes back, and a failed one is retried", async () => {
  const c = await connect(process.env.FIRN_RPC);
  const l1 = await connect(process.env.FIRN_L1_RPC);
  const l1Inbox = await deployInbox(l1);
  const cInbox = await deployInbox(c);

  // C-Chain → L1, delivered by firn's relayer and executed.
  const first = await message(c, l1, l1Inbox, "hello from viem");
  await delivered(l1, first.id);
  assert.equal(await l1.client.readContract({ address: l1Inbox, abi, functionName: "received" }), 1n);
  assert.equal((await events(l1, "MessageExecuted", first.id)).length, 1);

  // Its receipt rides back on the next messages L1 → C-Chain.
  let receipt = [];
  for (let i = 0; i < 6 && receipt.length === 0; i++) {
    const back = await message(l1, c, cInbox, `reply ${i}`);
    await delivered(c, back.id);
    receipt = await events(c, "ReceiptReceived", first.id);
  }
  assert.equal(receipt.length, 1, "the receipt came back");

  // Into a closed inbox: delivered, execution failed; retried once it opens.
  await write(l1, l1Inbox, "setClosed", [true]);
  const failing = await message(c, l1, l1Inbox, "into a closed inbox");
  await delivered(l1, failing.id);
  assert.equal((await events(l1, "MessageExecutionFailed", failing.id)).length, 1);
  assert.equal((await events(l1, "MessageExecuted", failing.id)).length, 0);
  await write(l1, l1Inbox, "setClosed", [false]);
  await write(l1, MESSENGER, "retryMessageExecution", [c.blockchainID, failing.message]);
  assert.equal((await events(l1, "MessageExecuted", failing.id)).length, 1);
  assert.equal(await l1.client.readContract({ address: l1Inbox, abi, functionName: "received" }), 2n);

  // The Data API: both sides, executed, the first one's receipt delivered.
  const m1 = await listed(first.id, (m) => m.status === "delivered" && m.receiptDelivered);
  assert.equal(m1.messageExecuted, true);
  assert.equal(m1.from.toLowerCase(), account.address.toLowerCase());
  assert.equal(m1.to.toLowerCase(), l1Inbox.toLowerCase());
  assert.equal(m1.sourceEvmChainId, String(await c.client.getChainId()));
  assert.equal(m1.destinationEvmChainId, String(await l1.client.getChainId()));
  assert.ok(m1.sourceTransaction?.txHash && m1.destinationTransaction?.txHash);
  const m3 = await listed(failing.id, (m) => m.status === "delivered" && m.messageExecuted);
  assert.equal(m3.data, toHex("into a closed inbox"));
  assert.ok(m3.sourceTransaction && m3.destinationTransaction);
});
