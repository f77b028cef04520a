// A webhook receiver and the official SDK's whole webhook lifecycle against firn's Data API.
//
// 1. Starts a receiver on loopback that checks every delivery with chainkit's
//    `validateWebhook` (the x-signature HMAC and the payload's schema) and refuses its first
//    three requests with a 500 (firn must retry them).
// 2. Runs every webhook operation through chainkit (response validation on): create two
//    webhooks, list them page by page, get, update, add, list and remove addresses, deactivate,
//    read and rotate the shared secret.
// 3. Prints one JSON line per thing the Rust test follows, and runs until it is killed:
//    {"ready": {webhookId, receiver}}, {"failed": n}, {"event": {messageId, txHash}},
//    {"invalid": reason}, {"error": reason}.
//
// Env: FIRN_API_URL (Data API base URL), FIRN_CHAIN_ID, FIRN_WATCH (the address whose activity
// the first webhook follows).
import http from "node:http";

import { Avalanche } from "@avalanche-sdk/chainkit";

const serverURL = process.env.FIRN_API_URL;
const chainId = process.env.FIRN_CHAIN_ID;
const watch = process.env.FIRN_WATCH;
const o = { serverURL, retries: { strategy: "none" } };
const avalanche = new Avalanche({ apiKey: "firn-webhook-test", enableTelemetry: false });
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

let secret;
let refused = 0;
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    if (refused < 3) {
      refused++;
      say({ failed: refused });
      res.writeHead(500).end();
      return;
    }
    const body = Buffer.concat(chunks);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: "POST",
      headers: req.headers,
      body,
    });
    try {
      const event = await avalanche.validateWebhook({ request, secret });
      say({ event: { messageId: event.messageId, txHash: event.event.transaction.txHash } });
    } catch (e) {
      say({ invalid: String(e?.message ?? e).slice(0, 500) });
    }
    res.writeHead(200).end();
  });
});
await new Promise((ok) => receiver.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${receiver.address().port}/hook`;

try {
  const other = "0x00000000000000000000000000000000000f1127";
  const created = await avalanche.webhooks.create(
    {
      eventType: "address_activity",
      url,
      chainId,
      name: "firn test",
      description: "every transfer to the watched address",
      metadata: { addresses: [watch] },
      includeLogs: true,
      includeInternalTxs: true,
    },
    o,
  );
  check(created.status === "active" && created.url === url, "created webhook");
  const second = await avalanche.webhooks.create(
    { eventType: "address_activity", url: `${url}/second`, chainId, metadata: { addresses: [other] } },
    o,
  );
  const listed = [];
  for await (const page of await avalanche.webhooks.list({ pageSize: 1 }, o)) {
    listed.push(...page.result.webhooks.map((w) => w.id));
  }
  check(listed.includes(created.id) && listed.includes(second.id), `listed ${listed}`);
  const got = await avalanche.webhooks.get({ id: created.id }, o);
  check(got.id === created.id && got.metadata.addresses.length === 1, "get");
  const renamed = await avalanche.webhooks.update(
    { id: second.id, updateWebhookRequest: { name: "renamed", includeLogs: true } },
    o,
  );
  check(renamed.name === "renamed", "update");
  const extra = "0x00000000000000000000000000000000000f1128";
  await avalanche.webhooks.addresses.add({ id: second.id, addressesChangeRequest: { addresses: [extra] } }, o);
  const addresses = [];
  for await (const page of await avalanche.webhooks.addresses.list({ id: second.id, pageSize: 1 }, o)) {
    check(page.result.totalAddresses === 2, "totalAddresses");
    addresses.push(...page.result.addresses);
  }
  check(addresses.length === 2, `addresses ${addresses}`);
  const removed = await avalanche.webhooks.addresses.remove(
    { id: second.id, addressesChangeRequest: { addresses: [extra] } },
    o,
  );
  check(removed.metadata.addresses.length === 1, "remove");
  const off = await avalanche.webhooks.deactivate({ id: second.id }, o);
  check(off.status === "inactive", "deactivate");
  const first = await avalanche.webhooks.getSharedSecret(o);
  const rotated = await avalanche.webhooks.generateOrRotateSharedSecret(o);
  check(rotated.secret !== first.secret, "rotation makes a new secret");
  secret = (await avalanche.webhooks.getSharedSecret(o)).secret;
  check(secret === rotated.secret, "the rotated secret is in force");
  say({ ready: { webhookId: created.id, receiver: url } });
} catch (e) {
  say({ error: String(e?.stack ?? e).slice(0, 2000) });
  process.exit(1);
}
