// Calls the official chainkit SDK's Metrics API methods against a firn Metrics API server and
// reports, as one JSON line, what each returned; exits 1 on any error (response validation
// included). Env: FIRN_METRICS_URL (http://127.0.0.1:PORT), FIRN_CHAIN_ID; FIRN_CHAIN_ID empty
// or unset skips the per-chain methods (a store with no indexed EVM chain has none to ask);
// FIRN_L1_VALIDATION_ID, FIRN_L1_NODE_ID and FIRN_L1_SUBNET_ID name whose L1 validator fees to
// ask for (unset: the network-wide ones only); FIRN_BTCB_THRESHOLD, when set, lists the BTC.b
// bridgers above it, one a page.
import { Avalanche } from "@avalanche-sdk/chainkit";

const serverURL = process.env.FIRN_METRICS_URL;
const chainId = process.env.FIRN_CHAIN_ID;
const sdk = new Avalanche({ enableTelemetry: false });
const options = { serverURL };
const report = { errors: [] };

async function run(name, call) {
  try {
    report[name] = await call();
  } catch (e) {
    report.errors.push(`${name}: ${e?.name}: ${e?.message}`);
  }
}

// Every page of a paged method, as the SDK's iterator walks them.
async function allPages(result, field) {
  const items = [];
  let pages = 0;
  for await (const page of result) {
    pages += 1;
    items.push(...page.result[field]);
  }
  return { pages, items };
}

await run("healthCheck", async () => await sdk.metrics.healthCheck(options));
await run("liveCheck", async () => await sdk.metrics.liveCheck(options));
await run("list", async () => (await sdk.metrics.chains.list({}, options)).result.chains);
if (chainId) {
  await run("get", async () => await sdk.metrics.chains.get({ chainId }, options));
  for (const metric of ["txCount", "avgTps", "maxTps", "activeAddresses", "gasUsed", "feesPaid", "cumulativeTxCount"]) {
    await run(`getMetrics:${metric}`, async () =>
      allPages(
        await sdk.metrics.chains.getMetrics({ chainId, metric, timeInterval: "day", pageSize: 7 }, options),
        "results",
      ),
    );
  }
  await run("getMetrics:txCount:week", async () =>
    allPages(
      await sdk.metrics.chains.getMetrics({ chainId, metric: "txCount", timeInterval: "week" }, options),
      "results",
    ),
  );
  await run("getRollingWindowMetrics", async () =>
    (await sdk.metrics.chains.getRollingWindowMetrics({ chainId, metric: "txCount" }, options)).result,
  );
  await run("getRollingWindowMetrics:activeSenders", async () =>
    (await sdk.metrics.chains.getRollingWindowMetrics({ chainId, metric: "activeSenders" }, options)).result,
  );
  // Network-wide: every indexed chain.
  await run("getMetrics:txCount:total", async () =>
    allPages(
      await sdk.metrics.chains.getMetrics({ chainId: "total", metric: "txCount", timeInterval: "day", pageSize: 7 }, options),
      "results",
    ),
  );
  await run("getRollingWindowMetrics:total", async () =>
    (await sdk.metrics.chains.getRollingWindowMetrics({ chainId: "total", metric: "txCount" }, options)).result,
  );
} else {
  report.skipped = "per-chain metrics (no FIRN_CHAIN_ID)";
}
await run("getICMSummary", async () => (await sdk.metrics.chains.getICMSummary({}, options)).result);
await run("getICMTimeseries", async () =>
  (await sdk.metrics.chains.getICMTimeseries({ timeInterval: "day", groupBy: "srcBlockchainId,destBlockchainId", pageSize: 2160 }, options)).results,
);
await run("getStakingMetrics", async () =>
  allPages(
    await sdk.metrics.networks.getStakingMetrics({ network: "fuji", metric: "validatorCount", pageSize: 2 }, options),
    "results",
  ),
);

await run("subnets.getValidators", async () =>
  allPages(
    await sdk.metrics.subnets.getValidators({ subnetId: "11111111111111111111111111111111LpoYY", pageSize: 1 }, options),
    "addresses",
  ),
);

// L1 validator fees: network-wide, and per validation, node and L1 when named.
for (const metric of ["totalValidatorFeesDaily", "totalCumulativeFeesDaily", "totalPayingValidatorsDaily"]) {
  await run(`l1Validators.listMetrics:${metric}`, async () =>
    (await sdk.metrics.l1Validators.listMetrics({ metric }, options)).results,
  );
}
const l1 = [
  ["getMetricsByValidationId", "FIRN_L1_VALIDATION_ID", "l1ValidationId", ["validationFeesDaily", "validationCumulativeFeesDaily"]],
  ["getMetricsByNodeId", "FIRN_L1_NODE_ID", "nodeId", ["perNodeDailyFeesPaid", "perNodeCumulativeFeesPaid"]],
  ["getMetricsBySubnetId", "FIRN_L1_SUBNET_ID", "subnetId", ["perSubnetDailyFeesPaid", "perSubnetCumulativeFeesPaid", "perSubnetPayingValidators"]],
];
for (const [method, env, param, metrics] of l1) {
  const value = process.env[env];
  if (!value) continue;
  for (const metric of metrics) {
    await run(`l1Validators.${method}:${metric}`, async () =>
      (await sdk.metrics.l1Validators[method]({ [param]: value, metric }, options)).results,
    );
  }
}

if (process.env.FIRN_BTCB_THRESHOLD) {
  await run("chains.listBTCbBridgersAboveThreshold", async () =>
    allPages(
      await sdk.metrics.chains.listBTCbBridgersAboveThreshold({ threshold: process.env.FIRN_BTCB_THRESHOLD, pageSize: 1 }, options),
      "addresses",
    ),
  );
}

console.log(JSON.stringify(report));
process.exit(report.errors.length === 0 ? 0 : 1);
