//! Transactions in: decoding EIP-2718 bytes, recovering the sender under the chain's ID,
//! intrinsic gas, and the revm `TxEnv` of a transaction or a call.

use alloy_consensus::{Transaction, TxEnvelope};
use alloy_eips::eip2718::{Decodable2718, Encodable2718};
use alloy_primitives::{Address, B256, Bytes, Signature, TxKind, U256, keccak256};
use revm::context::TxEnv;
use revm::context_interface::transaction::AccessList;

use crate::block::SignedTx;
use crate::error::TxError;

/// geth's pool limit on a transaction's encoded size (4 × 32 KiB).
pub const MAX_TX_SIZE: usize = 128 * 1024;
/// EIP-3860: largest init code.
pub const MAX_INIT_CODE_SIZE: usize = 2 * 24_576;

/// Decodes and checks the signature of raw transaction bytes signed for `chain_id`.
pub fn decode_raw(bytes: &[u8], chain_id: u64) -> Result<SignedTx, TxError> {
    if bytes.len() > MAX_TX_SIZE {
        return Err(TxError::OversizedData {
            size: bytes.len(),
            limit: MAX_TX_SIZE,
        });
    }
    if bytes.is_empty() {
        return Err(TxError::Decode("typed transaction too short".into()));
    }
    if matches!(bytes[0], 3 | 4) {
        return Err(TxError::TypeNotSupported);
    }
    let mut buf = bytes;
    let envelope =
        TxEnvelope::decode_2718(&mut buf).map_err(|e| TxError::Decode(decode_text(&e)))?;
    if !buf.is_empty() {
        return Err(TxError::Decode(
            "rlp: input contains more than one value".into(),
        ));
    }
    from_envelope(envelope, chain_id)
}

/// half the secp256k1 group order: EIP-2 rejects signatures with a larger `s`.
const SECP256K1N_HALF: U256 = U256::from_be_bytes([
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
]);

/// The address that signed `hash`, with libsecp256k1 (several times faster than `k256`,
/// and recovery is most of the cost of taking in a transaction); `None` for a bad signature.
pub fn recover_sender(signature: &Signature, hash: B256) -> Option<Address> {
    use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
    if signature.s() > SECP256K1N_HALF {
        return None;
    }
    let mut compact = [0u8; 64];
    compact[..32].copy_from_slice(&signature.r().to_be_bytes::<32>());
    compact[32..].copy_from_slice(&signature.s().to_be_bytes::<32>());
    let id = RecoveryId::try_from(i32::from(signature.v())).ok()?;
    let sig = RecoverableSignature::from_compact(&compact, id).ok()?;
    let key = secp256k1::SECP256K1
        .recover_ecdsa(&secp256k1::Message::from_digest(hash.0), &sig)
        .ok()?;
    let public = key.serialize_uncompressed();
    Some(Address::from_slice(&keccak256(&public[1..])[12..]))
}

fn decode_text(e: &alloy_eips::eip2718::Eip2718Error) -> String {
    match e {
        alloy_eips::eip2718::Eip2718Error::UnexpectedType(_) => {
            "transaction type not supported".into()
        }
        other => format!("rlp: {other}"),
    }
}

/// Checks the chain ID and recovers the sender of a decoded transaction.
pub fn from_envelope(envelope: TxEnvelope, chain_id: u64) -> Result<SignedTx, TxError> {
    match &envelope {
        TxEnvelope::Legacy(_) | TxEnvelope::Eip2930(_) | TxEnvelope::Eip1559(_) => {}
        _ => return Err(TxError::TypeNotSupported),
    }
    match envelope.chain_id() {
        Some(id) if id != chain_id => {
            return Err(TxError::InvalidSender(format!(
                "invalid chain id for signer: have {id} want {chain_id}"
            )));
        }
        None => {
            return Err(TxError::Other(
                "only replay-protected (EIP-155) transactions allowed over RPC".into(),
            ));
        }
        Some(_) => {}
    }
    let sender = recover_sender(envelope.signature(), envelope.signature_hash())
        .ok_or_else(|| TxError::InvalidSender("invalid transaction v, r, s values".into()))?;
    let raw = Bytes::from(envelope.encoded_2718());
    Ok(SignedTx {
        hash: *envelope.tx_hash(),
        sender,
        raw,
        envelope,
        impersonated: false,
    })
}

/// A tx `sender` did not sign, sent for it while it is impersonated: its signature is a
/// placeholder (r is the sender's address, s is 1, as anvil's), so its hash is still unique.
pub fn impersonated(
    tx: alloy_consensus::TypedTransaction,
    sender: Address,
) -> Result<SignedTx, TxError> {
    use alloy_consensus::{SignableTransaction, TypedTransaction};
    let r = U256::from_be_slice(sender.as_slice());
    let signature = Signature::new(r, U256::from(1), false);
    let envelope: TxEnvelope = match tx {
        TypedTransaction::Legacy(t) => t.into_signed(signature).into(),
        TypedTransaction::Eip2930(t) => t.into_signed(signature).into(),
        TypedTransaction::Eip1559(t) => t.into_signed(signature).into(),
        _ => return Err(TxError::TypeNotSupported),
    };
    let raw = Bytes::from(envelope.encoded_2718());
    Ok(sent_for(envelope, sender, raw))
}

fn sent_for(envelope: TxEnvelope, sender: Address, raw: Bytes) -> SignedTx {
    SignedTx {
        hash: *envelope.tx_hash(),
        sender,
        raw,
        envelope,
        impersonated: true,
    }
}

/// An impersonated tx read back from the block file, its sender recorded beside it.
pub(crate) fn decode_impersonated(bytes: &[u8], sender: Address) -> Result<SignedTx, TxError> {
    let mut buf = bytes;
    let envelope =
        TxEnvelope::decode_2718(&mut buf).map_err(|e| TxError::Decode(decode_text(&e)))?;
    Ok(sent_for(envelope, sender, Bytes::copy_from_slice(bytes)))
}

/// Gas charged before execution: base cost, calldata, creation, access list, init code.
pub fn intrinsic_gas(
    data: &[u8],
    is_create: bool,
    access_list: Option<&alloy_eips::eip2930::AccessList>,
) -> u64 {
    let mut gas: u64 = if is_create { 53_000 } else { 21_000 };
    let zeros = data.iter().filter(|b| **b == 0).count() as u64;
    let non_zeros = data.len() as u64 - zeros;
    gas += zeros * 4 + non_zeros * 16;
    if is_create {
        gas += 2 * (data.len() as u64).div_ceil(32);
    }
    if let Some(list) = access_list {
        for item in list.iter() {
            gas += 2_400 + 1_900 * item.storage_keys.len() as u64;
        }
    }
    gas
}

/// The intrinsic gas of a transaction.
pub fn tx_intrinsic_gas(tx: &TxEnvelope) -> u64 {
    intrinsic_gas(tx.input(), tx.kind().is_create(), tx.access_list())
}

/// The revm environment of a signed transaction.
pub fn tx_env(tx: &SignedTx) -> TxEnv {
    let e = &tx.envelope;
    let (gas_price, priority) = match e {
        TxEnvelope::Eip1559(_) => (e.max_fee_per_gas(), e.max_priority_fee_per_gas()),
        _ => (e.gas_price().unwrap_or_default(), None),
    };
    TxEnv {
        tx_type: e.tx_type() as u8,
        caller: tx.sender,
        gas_limit: e.gas_limit(),
        gas_price,
        gas_priority_fee: priority,
        kind: e.kind(),
        value: e.value(),
        data: e.input().clone(),
        nonce: e.nonce(),
        chain_id: e.chain_id(),
        access_list: e.access_list().cloned().unwrap_or_default(),
        ..Default::default()
    }
}

/// A call as `eth_call` and `eth_estimateGas` take it (every field optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallRequest {
    /// Sender (zero address by default).
    pub from: Option<Address>,
    /// Callee; `None` creates a contract.
    pub to: Option<Address>,
    /// Gas limit (the block's by default).
    pub gas: Option<u64>,
    /// Legacy gas price.
    pub gas_price: Option<u128>,
    /// EIP-1559 fee cap.
    pub max_fee_per_gas: Option<u128>,
    /// EIP-1559 tip.
    pub max_priority_fee_per_gas: Option<u128>,
    /// Value.
    pub value: Option<U256>,
    /// Calldata (`input` or `data`).
    pub input: Option<Bytes>,
    /// Nonce (the sender's current one by default).
    pub nonce: Option<u64>,
    /// Access list.
    pub access_list: Option<AccessList>,
}

impl CallRequest {
    /// Whether the caller named any fee (then balance and base fee are checked).
    pub fn has_fees(&self) -> bool {
        self.gas_price.is_some_and(|p| p > 0) || self.max_fee_per_gas.is_some_and(|p| p > 0)
    }

    /// The revm environment of this call.
    pub fn env(&self, chain_id: u64, nonce: u64, gas: u64) -> TxEnv {
        let (tx_type, gas_price, priority) = match (self.max_fee_per_gas, self.gas_price) {
            (Some(max), _) => (2, max, Some(self.max_priority_fee_per_gas.unwrap_or(0))),
            (None, Some(p)) => (0, p, None),
            (None, None) => (0, 0, None),
        };
        TxEnv {
            tx_type,
            caller: self.from.unwrap_or_default(),
            gas_limit: gas,
            gas_price,
            gas_priority_fee: priority,
            kind: self.to.map_or(TxKind::Create, TxKind::Call),
            value: self.value.unwrap_or_default(),
            data: self.input.clone().unwrap_or_default(),
            nonce,
            chain_id: Some(chain_id),
            access_list: self.access_list.clone().unwrap_or_default(),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intrinsic_gas_counts_calldata_and_creation() {
        assert_eq!(intrinsic_gas(&[], false, None), 21_000);
        assert_eq!(intrinsic_gas(&[0, 1], false, None), 21_000 + 4 + 16);
        assert_eq!(intrinsic_gas(&[1; 33], true, None), 53_000 + 33 * 16 + 4);
    }

    #[test]
    fn garbage_is_a_decode_error() {
        assert!(matches!(decode_raw(&[0xc0], 1), Err(TxError::Decode(_))));
        assert_eq!(decode_raw(&[3, 1], 1), Err(TxError::TypeNotSupported));
        assert!(matches!(decode_raw(&[], 1), Err(TxError::Decode(_))));
    }

    #[test]
    fn recovers_the_signer_and_rejects_high_s() {
        use alloy_signer::SignerSync;
        for i in 1..=8u8 {
            let key = alloy_signer_local::PrivateKeySigner::from_bytes(&B256::repeat_byte(i))
                .expect("a valid key");
            let hash = keccak256([i]);
            let sig = key.sign_hash_sync(&hash).expect("signing");
            assert_eq!(recover_sender(&sig, hash), Some(key.address()));
            assert_ne!(recover_sender(&sig, keccak256([i, i])), Some(key.address()));
            // The same signature with s' = n - s (and the other parity) is valid ECDSA but
            // malleable; EIP-2 rejects it.
            let n = SECP256K1N_HALF * U256::from(2) + U256::from(1);
            let high = Signature::new(sig.r(), n - sig.s(), !sig.v());
            assert_eq!(recover_sender(&high, hash), None);
        }
    }
}
