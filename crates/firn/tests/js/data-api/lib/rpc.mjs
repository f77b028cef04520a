// The node's own JSON-RPC, as the SDK suites read it to check the Data API: AvalancheGo's
// P-Chain methods, geth's eth_* methods, and the small decoders the comparisons need (bech32
// addresses to their 20 bytes, reward UTXO bytes, ABI-encoded strings and words).

import { keccak_256 } from "@noble/hashes/sha3";

export function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

export class Node {
  constructor(url) {
    this.url = url;
    this.calls = 0;
  }

  async rpc(path, method, params) {
    this.calls++;
    const r = await fetch(`${this.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = await r.json();
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  }

  platform(method, params = {}) {
    return this.rpc("/ext/bc/P", `platform.${method}`, params);
  }

  async pHeight() {
    return Number((await this.platform("getHeight")).height);
  }

  eth(chainPath, method, params = []) {
    return this.rpc(chainPath, method, params);
  }

  // `eth_call` of `data` on `to`, at `block` (a tag or number).
  call(chainPath, to, data, block = "latest") {
    const tag = typeof block === "number" ? hexNumber(block) : block;
    return this.eth(chainPath, "eth_call", [{ to, data }, tag]);
  }
}

export const hexNumber = (n) => `0x${BigInt(n).toString(16)}`;

// A bech32 address (`fuji1…`, `P-fuji1…`) as the hex of its 20 bytes.
const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
export function bech32Hex(address) {
  const bare = address.replace(/^[A-Z]-/, "").toLowerCase();
  const data = bare.slice(bare.lastIndexOf("1") + 1, -6);
  let acc = 0;
  let bits = 0;
  const bytes = [];
  for (const c of data) {
    const v = CHARSET.indexOf(c);
    check(v >= 0, `bech32 character ${c} in ${address}`);
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  return Buffer.from(bytes).toString("hex");
}

// A UTXO's bytes (codec v0: tx ID, output index, asset ID, secp256k1 transfer output) as the
// fields the comparisons need; `null` for other output types.
export function decodeUtxo(hex) {
  const b = Buffer.from(hex.replace(/^0x/, ""), "hex");
  const typeId = b.readUInt32BE(70);
  if (typeId !== 7) return null;
  const count = b.readUInt32BE(94);
  const addresses = [];
  for (let i = 0; i < count; i++) addresses.push(b.subarray(98 + 20 * i, 118 + 20 * i).toString("hex"));
  return {
    txId: b.subarray(2, 34).toString("hex"),
    outputIndex: b.readUInt32BE(34),
    amount: b.readBigUInt64BE(74),
    addresses,
  };
}

// An ABI-encoded `string` return value.
export function abiString(hex) {
  const b = Buffer.from(hex.replace(/^0x/, ""), "hex");
  const offset = Number(b.readBigUInt64BE(24));
  const length = Number(b.readBigUInt64BE(offset + 24));
  return b.subarray(offset + 32, offset + 32 + length).toString("utf8");
}

export const abiWord = (hex) => BigInt(hex);
export const wordOf = (n) => BigInt(n).toString(16).padStart(64, "0");
export const addressWord = (a) => a.toLowerCase().replace(/^0x/, "").padStart(64, "0");
export const topicAddress = (t) => `0x${t.slice(26)}`.toLowerCase();

export const TOPICS = {
  transfer: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
  transferSingle: "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62",
  transferBatch: "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb",
};

export const SELECTORS = {
  name: "0x06fdde03",
  symbol: "0x95d89b41",
  decimals: "0x313ce567",
  tokenURI: "0xc87b56dd",
  uri: "0x0e89341c",
  ownerOf: "0x6352211e",
  balanceOf: "0x70a08231",
  balanceOf1155: "0x00fdd58e",
};

// Collects every item of a paged SDK call (up to `maxPages`); asserts at least `minPages` pages.
export async function pages(counter, name, start, field, minPages, maxPages = Infinity) {
  const items = [];
  let count = 0;
  for await (const page of await start()) {
    counter.calls++;
    count++;
    items.push(...page.result[field]);
    if (count >= maxPages) break;
  }
  check(count >= minPages, `${name}: ${count} pages, expected at least ${minPages}`);
  return items;
}

// Sorted, printable set difference for failure messages.
export function sameSet(got, want, what) {
  const g = new Set(got);
  const w = new Set(want);
  const missing = [...w].filter((x) => !g.has(x)).sort();
  const extra = [...g].filter((x) => !w.has(x)).sort();
  check(
    missing.length === 0 && extra.length === 0 && got.length === g.size,
    `${what}: missing ${JSON.stringify(missing.slice(0, 5))} (${missing.length}), unexpected ${JSON.stringify(extra.slice(0, 5))} (${extra.length}), ${got.length - g.size} duplicates`,
  );
}

const keccakHex = (text) => Buffer.from(keccak_256(Buffer.from(text))).toString("hex");

// A function's selector (`0x` and 8 hex digits) from its signature, `transfer(address,uint256)`.
export const functionSelector = (signature) => `0x${keccakHex(signature).slice(0, 8)}`;

// An address in EIP-55 mixed-case checksum encoding.
export function checksummed(address) {
  const hex = address.toLowerCase().replace(/^0x/, "");
  const hash = keccakHex(hex);
  return `0x${[...hex].map((ch, i) => (parseInt(hash[i], 16) >= 8 ? ch.toUpperCase() : ch)).join("")}`;
}
