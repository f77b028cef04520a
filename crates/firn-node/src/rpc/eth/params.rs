//! Argument types of the eth methods, decoded with go-ethereum's rules and error texts
//! (`hexutil` quantities and bytes, `BlockNumberOrHash`, `TransactionArgs`, `FilterCriteria`).

use alloy_primitives::{Address, B256, Bytes, U256};
use firn_evm::CallRequest;
use serde::de::{Deserialize, Deserializer, Error};
use serde_json::Value;

fn hex_digits(s: &str) -> Result<&str, String> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .ok_or("hex string without 0x prefix")?;
    if digits.is_empty() {
        return Err("hex string \"0x\"".into());
    }
    Ok(digits)
}

fn quantity(v: &Value, ty: &str) -> Result<U256, String> {
    let Value::String(s) = v else {
        return Err(format!(
            "json: cannot unmarshal non-string into Go value of type {ty}"
        ));
    };
    let digits = hex_digits(s)?;
    if digits.len() > 1 && digits.starts_with('0') {
        return Err("hex number with leading zero digits".into());
    }
    U256::from_str_radix(digits, 16).map_err(|_| "invalid hex string".into())
}

fn fixed_bytes(v: &Value, len: usize, ty: &str) -> Result<Vec<u8>, String> {
    let Value::String(s) = v else {
        return Err(format!(
            "json: cannot unmarshal non-string into Go value of type {ty}"
        ));
    };
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .ok_or("hex string without 0x prefix")?;
    if digits.len() != len * 2 {
        return Err(format!(
            "hex string has length {}, want {} for {ty}",
            digits.len(),
            len * 2
        ));
    }
    hex::decode(digits).map_err(|_| format!("invalid hex string for {ty}"))
}

fn bytes(v: &Value) -> Result<Bytes, String> {
    let Value::String(s) = v else {
        return Err("json: cannot unmarshal non-string into Go value of type hexutil.Bytes".into());
    };
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .ok_or("hex string without 0x prefix")?;
    if digits.len() % 2 == 1 {
        return Err("hex string of odd length".into());
    }
    hex::decode(digits)
        .map(Bytes::from)
        .map_err(|_| "invalid hex string".into())
}

macro_rules! from_value {
    ($t:ty, $parse:expr) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = Value::deserialize(d)?;
                let parse: fn(&Value) -> Result<$t, String> = $parse;
                parse(&v).map_err(D::Error::custom)
            }
        }
    };
}

/// geth's `decodeHash`: up to 32 bytes of hex, `0x` optional, odd lengths padded; the slot and
/// how many bytes were given.
pub fn decode_hash(text: &str) -> Result<(B256, usize), &'static str> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let padded = if digits.len() % 2 == 1 {
        format!("0{digits}")
    } else {
        digits.to_owned()
    };
    let bytes = hex::decode(&padded).map_err(|_| "hex string invalid")?;
    if bytes.len() > 32 {
        return Err("hex string too long, want at most 32 bytes");
    }
    let mut slot = [0u8; 32];
    slot[32 - bytes.len()..].copy_from_slice(&bytes);
    Ok((B256::from(slot), bytes.len()))
}

/// `hexutil.Uint64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HexU64(pub u64);
from_value!(HexU64, |v: &Value| {
    let n = quantity(v, "hexutil.Uint64")?;
    u64::try_from(n)
        .map(HexU64)
        .map_err(|_| "hex number > 64 bits".to_owned())
});

/// A count or time for the dev-loop methods: a JSON number (as `cast rpc` sends) or a hex
/// quantity (as the Hardhat helpers send).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DevU64(pub u64);
from_value!(DevU64, |v: &Value| match v {
    Value::Number(n) => n
        .as_u64()
        .map(DevU64)
        .ok_or_else(|| format!("{n} is not an unsigned 64-bit number")),
    _ => {
        let n = quantity(v, "hexutil.Uint64")?;
        u64::try_from(n)
            .map(DevU64)
            .map_err(|_| "hex number > 64 bits".to_owned())
    }
});

/// `hexutil.Big`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HexU256(pub U256);
from_value!(HexU256, |v: &Value| quantity(v, "*hexutil.Big")
    .map(HexU256));

/// `common.Address`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addr(pub Address);
from_value!(Addr, |v: &Value| fixed_bytes(v, 20, "common.Address")
    .map(|b| Addr(Address::from_slice(&b))));

/// `common.Hash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hash(pub B256);
from_value!(Hash, |v: &Value| fixed_bytes(v, 32, "common.Hash")
    .map(|b| Hash(B256::from_slice(&b))));

/// `hexutil.Bytes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HexBytes(pub Bytes);
from_value!(HexBytes, |v: &Value| bytes(v).map(HexBytes));

/// A block tag or number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockTag {
    /// `latest`, `safe`, `finalized` (all the same on Avalanche: accepted is final).
    Latest,
    /// `pending`.
    Pending,
    /// `earliest`.
    Earliest,
    /// A height.
    Number(u64),
}

fn block_tag(v: &Value) -> Result<BlockTag, String> {
    match v.as_str() {
        Some("latest" | "safe" | "finalized" | "accepted") => Ok(BlockTag::Latest),
        Some("pending") => Ok(BlockTag::Pending),
        Some("earliest") => Ok(BlockTag::Earliest),
        Some(_) => {
            let n = quantity(v, "rpc.BlockNumber")?;
            if n > U256::from(i64::MAX as u64) {
                return Err("block number larger than int64".into());
            }
            Ok(BlockTag::Number(n.to::<u64>()))
        }
        None => {
            Err("json: cannot unmarshal non-string into Go value of type rpc.BlockNumber".into())
        }
    }
}
from_value!(BlockTag, block_tag);

/// `rpc.BlockNumberOrHash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockId {
    /// By tag or number.
    Tag(BlockTag),
    /// By hash.
    Hash(B256),
}
from_value!(BlockId, |v: &Value| {
    if let Some(obj) = v.as_object() {
        let hash = obj.get("blockHash");
        let number = obj.get("blockNumber");
        return match (hash, number) {
            (Some(_), Some(_)) => Err(
                "cannot specify both BlockHash and BlockNumber, choose one or the other".to_owned(),
            ),
            (Some(h), None) => {
                fixed_bytes(h, 32, "common.Hash").map(|b| BlockId::Hash(B256::from_slice(&b)))
            }
            (None, Some(n)) => block_tag(n).map(BlockId::Tag),
            (None, None) => Err("invalid input".to_owned()),
        };
    }
    if let Some(s) = v.as_str()
        && s.len() == 66
    {
        return fixed_bytes(v, 32, "common.Hash").map(|b| BlockId::Hash(B256::from_slice(&b)));
    }
    block_tag(v).map(BlockId::Tag)
});

/// `TransactionArgs` (for `eth_call`, `eth_estimateGas`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallArgs(pub CallRequest);

fn opt<'a>(o: &'a serde_json::Map<String, Value>, k: &str) -> Option<&'a Value> {
    o.get(k).filter(|v| !v.is_null())
}

fn call_args(v: &Value) -> Result<CallArgs, String> {
    let Some(o) = v.as_object() else {
        return Err(
            "json: cannot unmarshal non-object into Go value of type ethapi.TransactionArgs".into(),
        );
    };
    let u64_of = |k: &str| -> Result<Option<u64>, String> {
        opt(o, k)
            .map(|v| {
                quantity(v, "hexutil.Uint64")
                    .and_then(|n| u64::try_from(n).map_err(|_| "hex number > 64 bits".to_owned()))
            })
            .transpose()
    };
    let u128_of = |k: &str| -> Result<Option<u128>, String> {
        opt(o, k)
            .map(|v| quantity(v, "*hexutil.Big").map(|n| n.saturating_to::<u128>()))
            .transpose()
    };
    let data = opt(o, "data").map(bytes).transpose()?;
    let input = opt(o, "input").map(bytes).transpose()?;
    if let (Some(d), Some(i)) = (&data, &input)
        && d != i
    {
        return Err("both \"data\" and \"input\" are set and not equal. Please use \"input\" to pass transaction call data".into());
    }
    let addr_of = |k: &str| -> Result<Option<Address>, String> {
        opt(o, k)
            .map(|v| fixed_bytes(v, 20, "common.Address").map(|b| Address::from_slice(&b)))
            .transpose()
    };
    let access_list = opt(o, "accessList").map(access_list).transpose()?;
    Ok(CallArgs(CallRequest {
        from: addr_of("from")?,
        to: addr_of("to")?,
        gas: u64_of("gas")?,
        gas_price: u128_of("gasPrice")?,
        max_fee_per_gas: u128_of("maxFeePerGas")?,
        max_priority_fee_per_gas: u128_of("maxPriorityFeePerGas")?,
        value: opt(o, "value")
            .map(|v| quantity(v, "*hexutil.Big"))
            .transpose()?,
        input: input.or(data),
        nonce: u64_of("nonce")?,
        access_list,
    }))
}
from_value!(CallArgs, call_args);

/// `[{address, storageKeys}]`.
fn access_list(v: &Value) -> Result<alloy_eips::eip2930::AccessList, String> {
    let Value::Array(items) = v else {
        return Err(
            "json: cannot unmarshal non-array into Go value of type types.AccessList".into(),
        );
    };
    let mut list = Vec::with_capacity(items.len());
    for item in items {
        let address = item
            .get("address")
            .ok_or("missing address in access list")
            .and_then(|a| fixed_bytes(a, 20, "common.Address").map_err(|_| "invalid address"))
            .map_err(str::to_owned)?;
        let mut keys = Vec::new();
        if let Some(Value::Array(ks)) = item.get("storageKeys") {
            for k in ks {
                keys.push(B256::from_slice(&fixed_bytes(k, 32, "common.Hash")?));
            }
        }
        list.push(alloy_eips::eip2930::AccessListItem {
            address: Address::from_slice(&address),
            storage_keys: keys,
        });
    }
    Ok(alloy_eips::eip2930::AccessList(list))
}

/// `FilterCriteria` (for `eth_getLogs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterArgs {
    /// `blockHash`.
    pub block_hash: Option<B256>,
    /// `fromBlock`.
    pub from: Option<BlockTag>,
    /// `toBlock`.
    pub to: Option<BlockTag>,
    /// `address`: one or many.
    pub addresses: Vec<Address>,
    /// `topics`.
    pub topics: Vec<Option<Vec<B256>>>,
}

fn filter_args(v: &Value) -> Result<FilterArgs, String> {
    let Some(o) = v.as_object() else {
        return Err(
            "json: cannot unmarshal non-object into Go value of type filters.FilterCriteria".into(),
        );
    };
    let mut f = FilterArgs {
        block_hash: opt(o, "blockHash")
            .map(|v| fixed_bytes(v, 32, "common.Hash").map(|b| B256::from_slice(&b)))
            .transpose()?,
        from: opt(o, "fromBlock").map(block_tag).transpose()?,
        to: opt(o, "toBlock").map(block_tag).transpose()?,
        ..Default::default()
    };
    if f.block_hash.is_some() && (f.from.is_some() || f.to.is_some()) {
        return Err(
            "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other".into(),
        );
    }
    let address = |v: &Value| {
        fixed_bytes(v, 20, "common.Address")
            .map(|b| Address::from_slice(&b))
            .map_err(|_| "invalid address".to_owned())
    };
    match opt(o, "address") {
        Some(Value::Array(list)) => {
            for a in list {
                f.addresses.push(address(a)?);
            }
        }
        Some(a) => f.addresses.push(address(a)?),
        None => {}
    }
    let topic = |v: &Value| {
        fixed_bytes(v, 32, "common.Hash")
            .map(|b| B256::from_slice(&b))
            .map_err(|_| "invalid topic(s)".to_owned())
    };
    if let Some(Value::Array(list)) = opt(o, "topics") {
        if list.len() > 4 {
            return Err("exceed max topics".into());
        }
        for t in list {
            f.topics.push(match t {
                Value::Null => None,
                Value::Array(alts) => Some(
                    alts.iter()
                        .filter(|a| !a.is_null())
                        .map(topic)
                        .collect::<Result<_, _>>()?,
                ),
                one => Some(vec![topic(one)?]),
            });
        }
    } else if opt(o, "topics").is_some() {
        return Err("invalid topic(s)".into());
    }
    Ok(f)
}
from_value!(FilterArgs, filter_args);

/// Percentiles for `eth_feeHistory`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Percentiles(pub Vec<f64>);
from_value!(Percentiles, |v: &Value| match v {
    Value::Null => Ok(Percentiles(Vec::new())),
    Value::Array(list) => list
        .iter()
        .map(|p| p
            .as_f64()
            .ok_or_else(|| "json: cannot unmarshal into Go value of type float64".to_owned()))
        .collect::<Result<Vec<_>, _>>()
        .map(Percentiles),
    _ => Err("json: cannot unmarshal non-array into Go value of type []float64".to_owned()),
});

/// `blockCount` of `eth_feeHistory`: a hex quantity or a plain number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockCount(pub u64);
from_value!(BlockCount, |v: &Value| match v {
    Value::Number(n) => n
        .as_u64()
        .map(BlockCount)
        .ok_or_else(|| "invalid block count".to_owned()),
    other => quantity(other, "math.HexOrDecimal64").map(|n| BlockCount(n.saturating_to())),
});

/// A trace config `{"tracer": "callTracer", "tracerConfig": {...}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceConfig {
    /// The tracer name (`callTracer`); `None` for the struct logger.
    pub tracer: Option<String>,
    /// `tracerConfig.onlyTopCall`.
    pub only_top_call: bool,
    /// `tracerConfig.withLog`.
    pub with_log: bool,
    /// `tracerConfig.diffMode` (`prestateTracer`).
    pub diff_mode: bool,
    /// The struct logger's `disableStack`, `disableStorage`, `enableMemory` and `limit`.
    pub logger: firn_evm::tracers::LoggerConfig,
}
from_value!(TraceConfig, |v: &Value| {
    let tracer = v.get("tracer").and_then(Value::as_str).map(str::to_owned);
    let cfg = v.get("tracerConfig");
    let flag = |k: &str| {
        cfg.and_then(|c| c.get(k))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let top = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    let limit = v.get("limit").and_then(Value::as_u64).unwrap_or(0);
    Ok::<_, String>(TraceConfig {
        tracer,
        only_top_call: flag("onlyTopCall"),
        with_log: flag("withLog"),
        diff_mode: flag("diffMode"),
        logger: firn_evm::tracers::LoggerConfig {
            disable_stack: top("disableStack"),
            disable_storage: top("disableStorage"),
            enable_memory: top("enableMemory"),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
        },
    })
});
