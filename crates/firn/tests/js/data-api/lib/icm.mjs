// The Data API's ICM messages against the chains' own logs: every Teleporter message any EVM
// chain sent (SendCrossChainMessage), with its delivery (ReceiveCrossChainMessage on the
// destination), execution (MessageExecuted, after a MessageExecutionFailed for the retried
// ones) and receipt (ReceiptReceived back on the source), through getIcmMessage,
// listIcmMessages (every filter) and listIcmMessagesByAddress, and teleporterMessageInfo on
// the transactions that sent and delivered them; and the legacy getTeleporterMessage,
// listTeleporterMessages and listTeleporterMessagesByAddress the SDKs still carry.
import { sha256 } from "@noble/hashes/sha2";
import { keccak_256 } from "@noble/hashes/sha3";

import { check, checksummed, hexNumber, pages, sameSet } from "./rpc.mjs";

const MESSENGER = "0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf";
const topic = (signature) => `0x${Buffer.from(keccak_256(Buffer.from(signature))).toString("hex")}`;
const MESSAGE = "(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes)";
const TOPICS = {
  sent: topic(`SendCrossChainMessage(bytes32,bytes32,${MESSAGE},(address,uint256))`),
  received: topic(`ReceiveCrossChainMessage(bytes32,bytes32,address,address,${MESSAGE})`),
  executed: topic("MessageExecuted(bytes32,bytes32)"),
  failed: topic(`MessageExecutionFailed(bytes32,bytes32,${MESSAGE})`),
  receipt: topic("ReceiptReceived(bytes32,bytes32,address,(address,uint256))"),
};

// cb58: base58 of the bytes and the last 4 bytes of their sha256.
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
export function cb58(hex) {
  const bytes = Buffer.from(hex.replace(/^0x/, ""), "hex");
  const full = Buffer.concat([bytes, Buffer.from(sha256(bytes)).subarray(-4)]);
  let n = BigInt(`0x${full.toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of full) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

const word = (data, i) => data.slice(2 + 64 * i, 2 + 64 * (i + 1));
const bare = (id) => id.replace(/^0x/, "");

// Every message the chains logged, by message ID (hex without 0x).
async function messagesOnChain(node, evm, blockchains) {
  const idOf = (chainPath) => {
    if (chainPath === "/ext/bc/C/rpc") return blockchains.find((c) => c.name === "C-Chain").id;
    return chainPath.split("/")[3];
  };
  const byId = new Map();
  const logs = async (c, t) => node.eth(c.chainPath, "eth_getLogs", [{ fromBlock: "0x0", toBlock: hexNumber(c.head), address: MESSENGER, topics: [t] }]);
  for (const c of evm) {
    for (const log of await logs(c, TOPICS.sent)) {
      // Data: the message's offset, the fee, then the message: nonce, sender, destination, recipient.
      const at = Number(BigInt(`0x${word(log.data, 0)}`)) / 32;
      byId.set(bare(log.topics[1]), {
        source: idOf(c.chainPath),
        sourceEvm: c.chainId,
        destinationHex: log.topics[2],
        sentTx: log.transactionHash,
        nonce: BigInt(`0x${word(log.data, at)}`).toString(),
        from: checksummed(`0x${word(log.data, at + 1).slice(24)}`),
        to: checksummed(`0x${word(log.data, at + 3).slice(24)}`),
        executed: false,
        failed: false,
        receipt: false,
      });
    }
  }
  for (const c of evm) {
    const here = idOf(c.chainPath);
    for (const log of await logs(c, TOPICS.received)) {
      const m = byId.get(bare(log.topics[1]));
      if (m) Object.assign(m, { destination: here, destinationEvm: c.chainId, receivedTx: log.transactionHash, deliverer: checksummed(`0x${log.topics[3].slice(26)}`) });
    }
    for (const log of await logs(c, TOPICS.executed)) {
      const m = byId.get(bare(log.topics[1]));
      if (m) m.executed = true;
    }
    for (const log of await logs(c, TOPICS.failed)) {
      const m = byId.get(bare(log.topics[1]));
      if (m) m.failed = true;
    }
    for (const log of await logs(c, TOPICS.receipt)) {
      const m = byId.get(bare(log.topics[1]));
      if (m) m.receipt = true;
    }
  }
  return byId;
}

// `ctx`: { counter, o, node, evm, blockchains }.
export function icmSteps(d, ctx) {
  const { counter, o, node, evm, blockchains } = ctx;
  let chain;
  const logged = async () => (chain ??= await messagesOnChain(node, evm, blockchains));
  const same = (m, want, what) => {
    check(m.sourceBlockchainId === want.source && m.sourceEvmChainId === want.sourceEvm, `${what} source ${m.sourceBlockchainId}/${m.sourceEvmChainId}`);
    check(m.destinationBlockchainId === cb58(want.destinationHex), `${what} destination ${m.destinationBlockchainId}`);
    check(m.messageNonce === want.nonce && m.from === want.from && m.to === want.to, `${what} nonce/from/to ${m.messageNonce} ${m.from} ${m.to}`);
    check(m.sourceTransaction?.txHash === want.sentTx, `${what} source tx ${m.sourceTransaction?.txHash} != ${want.sentTx}`);
    check(m.icmContractAddress.toLowerCase() === MESSENGER, `${what} messenger`);
    check(m.messageExecuted === want.executed && m.receiptDelivered === want.receipt, `${what} executed ${m.messageExecuted}/${want.executed}, receipt ${m.receiptDelivered}/${want.receipt}`);
    if (want.receivedTx) {
      check(m.status === "delivered", `${what} status ${m.status}`);
      check(m.destinationEvmChainId === want.destinationEvm, `${what} destination EVM chain ${m.destinationEvmChainId}`);
      check(m.destinationTransaction.txHash === want.receivedTx && m.destinationTransaction.delivererAddress === want.deliverer, `${what} delivery ${m.destinationTransaction.txHash} != ${want.receivedTx}`);
    } else {
      check(m.status === "pending" && m.destinationTransaction === undefined, `${what} pending: ${m.status}`);
    }
  };
  return {
    listIcmMessages: async () => {
      const want = await logged();
      check(want.size >= 4, `the history sent ${want.size} ICM messages`);
      check([...want.values()].some((m) => m.failed && m.executed), "a failed execution was retried");
      const got = await pages(counter, "icm", () => d.icm.list({ pageSize: 3 }, o), "messages", 2);
      sameSet(got.map((m) => m.messageId), [...want.keys()], "ICM messages (SendCrossChainMessage logs)");
      for (const m of got) same(m, want.get(m.messageId), `message ${m.messageId}`);
      const times = got.map((m) => m.sourceTransaction.timestamp);
      check(times.every((t, i) => i === 0 || t <= times[i - 1]), "newest first");
      // Every filter, against the logs.
      const [c, l1] = [evm[0], evm[1]];
      const l1Id = blockchains.find((b) => b.id === l1.chainPath.split("/")[3]).id;
      const filtered = async (request, keep, what) => {
        const r = await pages(counter, what, () => d.icm.list({ pageSize: 100, ...request }, o), "messages", 1);
        sameSet(r.map((m) => m.messageId), [...want].filter(([, m]) => keep(m)).map(([id]) => id), what);
      };
      await filtered({ sourceBlockchainId: c.chainId }, (m) => m.sourceEvm === c.chainId, "sourceBlockchainId (EVM chain ID)");
      await filtered({ destinationBlockchainId: l1Id }, (m) => cb58(m.destinationHex) === l1Id, "destinationBlockchainId (cb58)");
      await filtered({ blockchainId: l1Id }, (m) => m.source === l1Id || cb58(m.destinationHex) === l1Id, "blockchainId");
      const one = [...want.values()][0];
      await filtered({ from: one.from, to: one.to }, (m) => m.from === one.from && m.to === one.to, "from and to");
    },
    getIcmMessage: async () => {
      const want = await logged();
      const retried = [...want].find(([, m]) => m.failed);
      for (const [id, m] of [retried, ...[...want].slice(0, 2)]) {
        counter.calls++;
        const got = await d.icm.get({ messageId: id }, o);
        same(got, m, `getIcmMessage ${id}`);
      }
    },
    listIcmMessagesByAddress: async () => {
      const want = await logged();
      const address = [...want.values()][0].to;
      counter.calls++;
      const r = await d.icm.listByAddress({ address, pageSize: 100 }, o);
      sameSet(r.messages.map((m) => m.messageId), [...want].filter(([, m]) => m.from === address || m.to === address).map(([id]) => id), `messages of ${address}`);
    },
    // The same operations under the legacy paths the SDKs keep (`teleporterContractAddress`).
    listTeleporterMessages: async () => {
      const want = await logged();
      const got = await pages(counter, "teleporter", () => d.teleporter.listTeleporterMessages({ pageSize: 5 }, o), "messages", 2);
      sameSet(got.map((m) => m.messageId), [...want.keys()], "teleporter messages (SendCrossChainMessage logs)");
      for (const m of got) same({ ...m, icmContractAddress: m.teleporterContractAddress }, want.get(m.messageId), `teleporter message ${m.messageId}`);
    },
    getTeleporterMessage: async () => {
      const want = await logged();
      const [id, m] = [...want][0];
      counter.calls++;
      const got = await d.teleporter.getTeleporterMessage({ messageId: id }, o);
      same({ ...got, icmContractAddress: got.teleporterContractAddress }, m, `getTeleporterMessage ${id}`);
    },
    listTeleporterMessagesByAddress: async () => {
      const want = await logged();
      const address = [...want.values()][0].from;
      counter.calls++;
      const r = await d.teleporter.listTeleporterMessagesByAddress({ address, pageSize: 100 }, o);
      sameSet(r.messages.map((m) => m.messageId), [...want].filter(([, m]) => m.from === address || m.to === address).map(([id]) => id), `teleporter messages of ${address}`);
    },
    teleporterMessageInfo: async () => {
      const want = await logged();
      const [id, m] = [...want].find(([, x]) => x.receivedTx);
      counter.calls += 2;
      const sent = await d.evm.transactions.get({ chainId: m.sourceEvm, txHash: m.sentTx }, o);
      const info = sent.teleporterMessageInfo;
      check(info?.teleporterMessageId === id && info.direction === "SOURCE_TRANSACTION" && info.destinationChainId === m.destinationEvm, `send ${m.sentTx}: ${JSON.stringify(info)}`);
      const delivered = await d.evm.transactions.get({ chainId: m.destinationEvm, txHash: m.receivedTx }, o);
      const back = delivered.teleporterMessageInfo;
      check(back?.teleporterMessageId === id && back.direction === "DESTINATION_TRANSACTION" && back.sourceChainId === m.sourceEvm, `delivery ${m.receivedTx}: ${JSON.stringify(back)}`);
    },
  };
}
