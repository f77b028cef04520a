// The official chainkit SDK's signatureAggregator.aggregate and .get against firn.
// Driven by crates/firn/tests/it/aggregator_sdk.rs, which starts firn and checks the output.
// Input (env): FIRN_URL, MESSAGE, JUSTIFICATION, TX_HASH, UNKNOWN_TX.
// Output (stdout): one JSON object with each call's result or error.
import { Avalanche } from "@avalanche-sdk/chainkit";

const serverURL = process.env.FIRN_URL;
const avalanche = new Avalanche({ serverURL, network: "fuji", enableTelemetry: false });
// The aggregator operations carry their own server, so the base URL goes on each call.
const options = { serverURL, retries: { strategy: "none" } };
const sa = avalanche.data.signatureAggregator;

async function attempt(call) {
  try {
    return { ok: await call() };
  } catch (e) {
    return {
      error: {
        name: e?.constructor?.name,
        statusCode: e?.statusCode ?? e?.httpMeta?.response?.status,
        message: e?.message,
      },
    };
  }
}

const out = {
  aggregate: await attempt(() =>
    sa.aggregate(
      {
        signatureAggregatorRequest: {
          message: process.env.MESSAGE,
          justification: process.env.JUSTIFICATION,
          quorumPercentage: 67,
        },
      },
      options,
    ),
  ),
  get: await attempt(() => sa.get({ txHash: process.env.TX_HASH }, options)),
  malformed: await attempt(() =>
    sa.aggregate({ signatureAggregatorRequest: { message: "0xnothex" } }, options),
  ),
  unknownTx: await attempt(() => sa.get({ txHash: process.env.UNKNOWN_TX }, options)),
};
console.log(JSON.stringify(out));
