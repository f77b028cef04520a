//! Building, signing and pooling EVM txs for generated activity: the ABI encoding of the few
//! calls the token contracts take, and their creation code from `contracts/artifacts`.

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip2930::AccessList;
use alloy_primitives::{Address, B256, Bytes, Signature, TxKind, U256};
use firn_core::evm::keccak256;
use firn_core::keys::secp256k1::PrivateKey;
use firn_evm::{CallRequest, EvmChain, SUGGESTED_TIP};

/// The contracts history deploys, in the deployer's nonce order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contract {
    Token,
    Collectible,
    MultiToken,
    Router,
    /// Deployed last: a chain whose history began before it existed goes on without it.
    Rebasing,
}

impl Contract {
    pub const ALL: [Contract; 5] = [
        Contract::Token,
        Contract::Collectible,
        Contract::MultiToken,
        Contract::Router,
        Contract::Rebasing,
    ];

    fn artifact(self) -> &'static str {
        match self {
            Contract::Token => include_str!("../../../../contracts/artifacts/FirnToken.json"),
            Contract::Collectible => {
                include_str!("../../../../contracts/artifacts/FirnCollectible.json")
            }
            Contract::MultiToken => {
                include_str!("../../../../contracts/artifacts/FirnMultiToken.json")
            }
            Contract::Router => include_str!("../../../../contracts/artifacts/FirnRouter.json"),
            Contract::Rebasing => {
                include_str!("../../../../contracts/artifacts/FirnRebasing.json")
            }
        }
    }

    /// Creation code followed by the constructor's arguments.
    pub fn init_code(self) -> Result<Vec<u8>, String> {
        let supply = U256::from(1_000_000u64) * U256::from(10u64).pow(U256::from(18));
        let args = match self {
            Contract::Token => encode(&[
                Arg::Str("Firn Token"),
                Arg::Str("FIRN"),
                Arg::Uint(U256::from(18)),
                Arg::Uint(supply),
            ]),
            Contract::Collectible => encode(&[Arg::Str("Firn Collectible"), Arg::Str("FCOL")]),
            Contract::MultiToken => encode(&[Arg::Str("Firn Multi")]),
            Contract::Router => Vec::new(),
            Contract::Rebasing => encode(&[
                Arg::Str("Firn Staked"),
                Arg::Str("sFIRN"),
                Arg::Uint(supply),
            ]),
        };
        creation_code(self.artifact(), &args)
    }
}

/// The creation code of a `contracts/artifacts` JSON artifact, followed by `args` (the
/// constructor's arguments, ABI-encoded).
pub fn creation_code(artifact: &str, args: &[u8]) -> Result<Vec<u8>, String> {
    let artifact: serde_json::Value = serde_json::from_str(artifact).map_err(|e| e.to_string())?;
    let code = artifact["bytecode"]
        .as_str()
        .ok_or("artifact without bytecode")?;
    let mut out = hex::decode(code.trim_start_matches("0x")).map_err(|e| e.to_string())?;
    out.extend(args);
    Ok(out)
}

/// One ABI argument.
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    Addr(Address),
    Uint(U256),
    Word(B256),
    Str(&'a str),
    Bytes(&'a [u8]),
    Addrs(&'a [Address]),
}

fn word_addr(a: Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

fn padded(data: &[u8]) -> Vec<u8> {
    let mut out = U256::from(data.len()).to_be_bytes::<32>().to_vec();
    let mut body = data.to_vec();
    body.resize(data.len().div_ceil(32) * 32, 0);
    out.extend(body);
    out
}

/// The ABI encoding of `args` (heads, then the dynamic values' tails).
pub fn encode(args: &[Arg<'_>]) -> Vec<u8> {
    let mut head = Vec::with_capacity(args.len() * 32);
    let mut tail = Vec::new();
    let head_len = args.len() * 32;
    for arg in args {
        let dynamic = match arg {
            Arg::Addr(a) => {
                head.extend(word_addr(*a));
                None
            }
            Arg::Uint(v) => {
                head.extend(v.to_be_bytes::<32>());
                None
            }
            Arg::Word(w) => {
                head.extend(w.0);
                None
            }
            Arg::Str(s) => Some(padded(s.as_bytes())),
            Arg::Bytes(b) => Some(padded(b)),
            Arg::Addrs(list) => {
                let mut t = U256::from(list.len()).to_be_bytes::<32>().to_vec();
                for a in *list {
                    t.extend(word_addr(*a));
                }
                Some(t)
            }
        };
        if let Some(t) = dynamic {
            head.extend(U256::from(head_len + tail.len()).to_be_bytes::<32>());
            tail.extend(t);
        }
    }
    head.extend(tail);
    head
}

/// Calldata: the selector of `signature`, then `args`.
pub fn calldata(signature: &str, args: &[Arg<'_>]) -> Vec<u8> {
    let mut out = keccak256(signature.as_bytes())[..4].to_vec();
    out.extend(encode(args));
    out
}

/// The key's address on the EVM chains.
pub fn address_of(key: &PrivateKey) -> Address {
    Address::from(key.public_key().eth_address())
}

/// A read-only call at the head; `None` when it reverts.
pub fn call(chain: &EvmChain, to: Address, data: Vec<u8>) -> Option<Bytes> {
    chain
        .call(&CallRequest {
            to: Some(to),
            input: Some(data.into()),
            ..CallRequest::default()
        })
        .ok()
}

/// A call returning one word, as a number (0 when it reverts or returns nothing).
pub fn call_uint(chain: &EvmChain, to: Address, data: Vec<u8>) -> U256 {
    call(chain, to, data)
        .filter(|out| out.len() >= 32)
        .map(|out| U256::from_be_slice(&out[..32]))
        .unwrap_or(U256::ZERO)
}

/// Estimates, signs (EIP-1559, a fee cap of twice the next base fee) and pools a tx from
/// `key`; returns its hash. The error says why it was not sent (a revert, a pool refusal).
pub fn send(
    chain: &EvmChain,
    key: &PrivateKey,
    to: Option<Address>,
    value: U256,
    data: Vec<u8>,
) -> Result<B256, String> {
    send_with_access_list(chain, key, to, value, data, AccessList::default())
}

/// [`send`] with an access list (Warp predicates, say), estimated with it.
pub fn send_with_access_list(
    chain: &EvmChain,
    key: &PrivateKey,
    to: Option<Address>,
    value: U256,
    data: Vec<u8>,
    access_list: AccessList,
) -> Result<B256, String> {
    let from = address_of(key);
    let input = Bytes::from(data);
    let estimate = chain
        .estimate_gas(&CallRequest {
            from: Some(from),
            to,
            value: Some(value),
            input: Some(input.clone()),
            access_list: Some(access_list.clone()),
            ..CallRequest::default()
        })
        .map_err(|e| e.to_string())?;
    let block_limit = chain.next_block_fees().gas_limit;
    let tx = TxEip1559 {
        chain_id: chain.chain_id(),
        nonce: chain.pending_nonce(&from),
        gas_limit: (estimate + estimate / 5).min(block_limit),
        max_fee_per_gas: u128::from(chain.next_base_fee()) * 2 + SUGGESTED_TIP,
        max_priority_fee_per_gas: SUGGESTED_TIP,
        to: to.map_or(TxKind::Create, TxKind::Call),
        value,
        access_list,
        input,
    };
    chain
        .submit_raw_tx(&signed_raw(key, tx))
        .map_err(|e| e.to_string())
}

/// `tx` signed by `key`, as `eth_sendRawTransaction` takes it (EIP-2718 bytes).
pub fn signed_raw(key: &PrivateKey, tx: TxEip1559) -> Vec<u8> {
    let sig = key.sign_hash(&tx.signature_hash().0);
    let b = sig.as_bytes();
    let signature = Signature::new(
        U256::from_be_slice(&b[..32]),
        U256::from_be_slice(&b[32..64]),
        b[64] == 1,
    );
    let envelope: TxEnvelope = tx.into_signed(signature).into();
    envelope.encoded_2718()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_dynamic_arguments_after_the_heads() {
        // transfer(address,uint256): two static words, no tail.
        let a = Address::repeat_byte(0x11);
        let data = calldata(
            "transfer(address,uint256)",
            &[Arg::Addr(a), Arg::Uint(U256::from(7))],
        );
        assert_eq!(hex::encode(&data[..4]), "a9059cbb");
        assert_eq!(data.len(), 4 + 64);
        assert_eq!(data[4 + 63], 7);
        // (string "ab", address[] [a]): offsets 0x40 and 0x80, then the tails.
        let enc = encode(&[Arg::Str("ab"), Arg::Addrs(&[a])]);
        assert_eq!(U256::from_be_slice(&enc[..32]), U256::from(0x40));
        assert_eq!(U256::from_be_slice(&enc[32..64]), U256::from(0x80));
        assert_eq!(U256::from_be_slice(&enc[64..96]), U256::from(2));
        assert_eq!(&enc[96..98], b"ab");
        assert_eq!(U256::from_be_slice(&enc[128..160]), U256::from(1));
        assert_eq!(&enc[160 + 12..192], a.as_slice());
    }

    #[test]
    fn every_artifact_has_creation_code() {
        for c in Contract::ALL {
            let code = c.init_code().expect("artifact");
            assert!(code.len() > 100, "{c:?}");
        }
    }
}
