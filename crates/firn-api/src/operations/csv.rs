//! The export files: RFC 4180 CSV, a header row then one row per transaction, with the values
//! the list endpoints return for the same transaction (their wire types format them, so the two
//! cannot drift apart).
//!
//! Every value comes from chain data (memos, method names, …) and is hostile: a field holding a
//! comma, a quote, CR or LF is quoted and its quotes doubled; nothing else is changed.

use firn_store::rows::evm::EvmTxRecord;
use firn_store::rows::pchain::PTxRecord;

use crate::wire::evm::NativeTransaction;
use crate::wire::pchain::{AssetAmount, Ctx, PChainTransaction};

/// Columns of an EVM export.
pub const EVM_HEADER: [&str; 17] = [
    "address",
    "chainId",
    "blockNumber",
    "blockTimestamp",
    "blockHash",
    "txHash",
    "txStatus",
    "txType",
    "from",
    "to",
    "value",
    "gasLimit",
    "gasUsed",
    "gasPrice",
    "nonce",
    "methodId",
    "methodName",
];

/// Columns of a Primary Network export.
pub const PCHAIN_HEADER: [&str; 16] = [
    "txHash",
    "txType",
    "blockNumber",
    "blockTimestamp",
    "blockHash",
    "value",
    "amountBurned",
    "amountStaked",
    "amountL1ValidatorBalanceBurned",
    "nodeId",
    "subnetId",
    "startTimestamp",
    "endTimestamp",
    "sourceChain",
    "destinationChain",
    "memo",
];

/// Columns of a simple Primary Network export.
pub const PCHAIN_SIMPLE_HEADER: [&str; 6] = [
    "txHash",
    "txType",
    "blockNumber",
    "blockTimestamp",
    "value",
    "amountBurned",
];

/// Appends one CSV record of `fields` (and its CRLF) to `out`.
pub fn write_record<S: AsRef<str>>(out: &mut Vec<u8>, fields: &[S]) {
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_field(out, field.as_ref());
    }
    out.extend_from_slice(b"\r\n");
}

fn write_field(out: &mut Vec<u8>, field: &str) {
    if field.contains([',', '"', '\r', '\n']) {
        out.push(b'"');
        out.extend_from_slice(field.replace('"', "\"\"").as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(field.as_bytes());
    }
}

/// The EVM row of `tx`, as `address`'s activity.
pub fn evm_row(address: &str, tx: &EvmTxRecord) -> Vec<String> {
    let t = NativeTransaction::from(tx);
    vec![
        address.to_owned(),
        t.chain_id,
        t.block_number,
        t.block_timestamp.to_string(),
        t.block_hash,
        t.tx_hash,
        t.tx_status,
        t.tx_type.to_string(),
        t.from.address,
        t.to.address,
        t.value,
        t.gas_limit,
        t.gas_used,
        t.gas_price,
        t.nonce,
        t.method.method_hash,
        t.method.method_name.unwrap_or_default(),
    ]
}

/// Amounts as `amount:assetId`, joined with `;`.
pub fn amounts(list: &[AssetAmount]) -> String {
    list.iter()
        .map(|a| format!("{}:{}", a.amount, a.asset_id))
        .collect::<Vec<_>>()
        .join(";")
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// The Primary Network row of `tx` (`simple`: the short form).
pub fn pchain_row(ctx: Ctx<'_>, tx: &PTxRecord, simple: bool) -> Vec<String> {
    let t = PChainTransaction::from_record(ctx, tx);
    if simple {
        return vec![
            t.tx_hash,
            t.tx_type,
            t.block_number,
            t.block_timestamp.to_string(),
            amounts(&t.value),
            amounts(&t.amount_burned),
        ];
    }
    vec![
        t.tx_hash,
        t.tx_type,
        t.block_number,
        t.block_timestamp.to_string(),
        t.block_hash,
        amounts(&t.value),
        amounts(&t.amount_burned),
        amounts(&t.amount_staked),
        amounts(&t.amount_l1_validator_balance_burned),
        opt(t.node_id),
        opt(t.subnet_id),
        opt(t.start_timestamp),
        opt(t.end_timestamp),
        opt(t.source_chain),
        opt(t.destination_chain),
        opt(t.memo),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fields: &[&str]) -> String {
        let mut out = Vec::new();
        write_record(&mut out, fields);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        assert_eq!(record(&["a", "", "0x12"]), "a,,0x12\r\n");
        assert_eq!(record(&["a,b"]), "\"a,b\"\r\n");
        assert_eq!(record(&["say \"hi\""]), "\"say \"\"hi\"\"\"\r\n");
        assert_eq!(record(&["x\ny", "z\r"]), "\"x\ny\",\"z\r\"\r\n");
        assert_eq!(record(&["\""]), "\"\"\"\"\r\n");
        assert_eq!(record(&["=1+2", " sp "]), "=1+2, sp \r\n");
    }
}
