//! What an EVM chain's validators sign (subnet-EVM's Warp `verifier_backend`, with its
//! error codes):
//!
//! 1. an unsigned message the chain emitted through the Warp precompile (its ID is in an
//!    accepted block's `SendWarpMessage` log);
//! 2. a `Hash` payload naming an accepted block of the chain;
//! 3. an off-chain message its chain config lists (subnet-EVM's `warp-off-chain-messages`);
//! 4. an off-chain `AddressedCall` with an empty source address carrying a
//!    `ValidatorUptime` for one of the chain's L1 validators, if the node saw it up that long
//!    (devnet validators are always up: since they were registered).
//!
//! Everything else is refused with [`PARSE_ERR_CODE`] (cannot be parsed, unknown kind) or
//! [`VERIFY_ERR_CODE`] (parsed, but not true of this chain). The source chain is checked
//! before these rules run: [`DevnetSigners`](firn_devnet::DevnetSigners) calls the rules
//! registered for the message's source chain.

use alloy_primitives::B256;
use firn_aggregator::AppError;
use firn_core::ids::Id;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_devnet::PChain;
use firn_devnet::signers::WarpVerifier;
use firn_evm::EvmChain;
use std::collections::HashSet;
use std::sync::Arc;

/// subnet-EVM's `ParseErrCode`: the message or its payload cannot be parsed or is of an
/// unknown kind.
pub const PARSE_ERR_CODE: i32 = 1;
/// subnet-EVM's `VerifyErrCode`: the message parsed but the chain does not vouch for it.
pub const VERIFY_ERR_CODE: i32 = 2;

/// Length of subnet-EVM's `ValidatorUptime` message: codec version, type ID 0, validation
/// ID, total uptime in seconds.
const UPTIME_LEN: usize = 2 + 4 + 32 + 8;

/// The signing rules of one EVM chain.
#[derive(Debug)]
pub struct EvmRules {
    chain: Arc<EvmChain>,
    pchain: Arc<PChain>,
    /// IDs of the off-chain messages the chain's config lists.
    off_chain: HashSet<Id>,
}

impl EvmRules {
    /// The rules of `chain`; `pchain` answers which L1 validators exist and since when.
    pub fn new(chain: Arc<EvmChain>, pchain: Arc<PChain>) -> Self {
        Self {
            chain,
            pchain,
            off_chain: HashSet::new(),
        }
    }

    /// Also signs `messages` ([`OffChainMessages`] checked them), as subnet-EVM signs its chain
    /// config's `warp-off-chain-messages`.
    pub fn with_off_chain(mut self, messages: impl IntoIterator<Item = Id>) -> Self {
        self.off_chain.extend(messages);
        self
    }

    /// The chain's blockchain ID, under which the rules are registered.
    pub fn chain_id(&self) -> Id {
        Id(self.chain.blockchain_id().0)
    }

    fn verify_block(&self, hash: Id) -> Result<(), AppError> {
        match self.chain.block_by_hash(&B256::from(hash.0)) {
            Some(_) => Ok(()),
            None => Err(verify_error(format!(
                "failed to get block {hash}: not found"
            ))),
        }
    }

    fn verify_offchain(&self, call: &AddressedCall) -> Result<(), AppError> {
        let (validation_id, total_uptime) = parse_uptime(&call.payload)
            .map_err(|e| parse_error(format!("failed to parse addressed call message: {e}")))?;
        if !call.source_address.is_empty() {
            return Err(verify_error(
                "source address should be empty for offchain addressed messages".into(),
            ));
        }
        let subnet = self.pchain.validated_by(&self.chain_id());
        let validator = self
            .pchain
            .l1_validator(&validation_id)
            .filter(|v| Some(v.validator.subnet_id) == subnet)
            .ok_or_else(|| {
                verify_error(format!(
                    "failed to get uptime: validationID {validation_id} not found"
                ))
            })?;
        let uptime = self
            .pchain
            .clock()
            .now()
            .saturating_sub(validator.validator.start_time);
        if uptime < total_uptime {
            return Err(verify_error(format!(
                "current uptime {uptime} is less than queried uptime {total_uptime} for validationID {validation_id}"
            )));
        }
        Ok(())
    }
}

impl WarpVerifier for EvmRules {
    fn verify(&self, message: &UnsignedMessage, _justification: &[u8]) -> Result<(), AppError> {
        let id = message.id();
        if self.off_chain.contains(&id) || self.chain.warp_message(&B256::from(id.0)).is_some() {
            return Ok(());
        }
        match Payload::from_bytes(&message.payload) {
            Ok(Payload::Hash(hash)) => self.verify_block(hash),
            Ok(Payload::AddressedCall(call)) => self.verify_offchain(&call),
            Err(e) => Err(parse_error(format!("failed to parse payload: {e}"))),
        }
    }
}

/// The off-chain messages a node's EVM chains sign, each on the chain it names as its source:
/// subnet-EVM's `warp-off-chain-messages`, checked as subnet-EVM checks them at start-up.
#[derive(Debug, Clone, Default)]
pub struct OffChainMessages(Vec<UnsignedMessage>);

impl OffChainMessages {
    /// Parses `messages` (unsigned Warp message bytes) for network `network_id`: each must
    /// parse, belong to the network and carry an `AddressedCall`.
    pub fn parse(network_id: u32, messages: &[Vec<u8>]) -> Result<Self, String> {
        let mut parsed = Vec::with_capacity(messages.len());
        for (i, bytes) in messages.iter().enumerate() {
            let message = UnsignedMessage::from_bytes(bytes)
                .map_err(|e| format!("failed to parse off-chain message at index {i}: {e}"))?;
            if message.network_id != network_id {
                return Err(format!(
                    "off-chain message at index {i} is for network {}, not {network_id}",
                    message.network_id
                ));
            }
            AddressedCall::from_bytes(&message.payload).map_err(|e| {
                format!("failed to parse off-chain message at index {i} as AddressedCall: {e}")
            })?;
            parsed.push(message);
        }
        Ok(Self(parsed))
    }

    /// IDs of the messages whose source is `chain_id`.
    pub fn of_chain(&self, chain_id: Id) -> Vec<Id> {
        self.0
            .iter()
            .filter(|m| m.source_chain_id == chain_id)
            .map(UnsignedMessage::id)
            .collect()
    }
}

fn parse_error(message: String) -> AppError {
    AppError {
        code: PARSE_ERR_CODE,
        message,
    }
}

fn verify_error(message: String) -> AppError {
    AppError {
        code: VERIFY_ERR_CODE,
        message,
    }
}

/// `(validationID, totalUptime)` of a `ValidatorUptime` message, the only off-chain message
/// subnet-EVM knows.
fn parse_uptime(bytes: &[u8]) -> Result<(Id, u64), String> {
    let version = bytes.get(..2).ok_or("message too short")?;
    if version != [0, 0] {
        return Err(format!("unknown codec version {}", hex::encode(version)));
    }
    let type_id = bytes.get(2..6).ok_or("message too short")?;
    if type_id != [0, 0, 0, 0] {
        return Err(format!("unknown message type ID {}", hex::encode(type_id)));
    }
    if bytes.len() != UPTIME_LEN {
        return Err(format!(
            "ValidatorUptime is {UPTIME_LEN} bytes, not {}",
            bytes.len()
        ));
    }
    let mut id = [0u8; 32];
    id.copy_from_slice(&bytes[6..38]);
    let mut uptime = [0u8; 8];
    uptime.copy_from_slice(&bytes[38..46]);
    Ok((Id(id), u64::from_be_bytes(uptime)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uptime(id: [u8; 32], secs: u64) -> Vec<u8> {
        let mut b = vec![0, 0, 0, 0, 0, 0];
        b.extend(id);
        b.extend(secs.to_be_bytes());
        b
    }

    #[test]
    fn validator_uptime_messages_parse_and_others_do_not() {
        assert_eq!(
            parse_uptime(&uptime([7; 32], 3600)),
            Ok((Id([7; 32]), 3600))
        );
        let mut wrong_type = uptime([7; 32], 1);
        wrong_type[5] = 1;
        assert!(parse_uptime(&wrong_type).unwrap_err().contains("type ID"));
        assert!(parse_uptime(&[0, 1]).unwrap_err().contains("codec version"));
        assert!(parse_uptime(&uptime([7; 32], 1)[..40]).is_err());
        assert!(parse_uptime(b"").is_err());
    }
}
