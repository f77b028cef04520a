-- Metrics rows and distinct-address sets are kept per week (from Monday) and calendar month
-- too, beside hours and days (`evm_metrics.period` 604800 and 2629746). New blocks write them
-- as they commit; for the blocks a store already holds, firn-store derives them from the day
-- rows once, at open, and then deletes the marker below (`src/upgrade.rs`).
CREATE TABLE store_upgrades (
    name  TEXT PRIMARY KEY
);

INSERT INTO store_upgrades (name) VALUES ('evm_week_month_metrics');
