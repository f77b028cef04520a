//! The ICM messenger's events in a block's logs: Teleporter v1's at its canonical address,
//! decoded by `firn_core::teleporter`. A send or delivery whose message ID does not follow the
//! messenger's rule for this chain is not the messenger's doing: it is logged and skipped, so
//! it cannot claim another message's ID.

use firn_core::ids::Id;
use firn_core::teleporter::{MESSENGER_V1, TeleporterEvent};
use firn_store::rows::evm::EvmLog;
use firn_store::rows::icm::IcmLog;
use tracing::warn;

/// The messenger's event in `log` on chain `blockchain_id`; `None` for any other log.
pub fn decode(blockchain_id: Id, log: &EvmLog) -> Option<IcmLog> {
    if log.address != MESSENGER_V1 {
        return None;
    }
    let event = TeleporterEvent::decode(&log.topics, &log.data)?;
    let expected = match &event {
        TeleporterEvent::Sent { message, .. } => Some(message.id(log.address, blockchain_id)),
        TeleporterEvent::Received {
            source_blockchain_id,
            message,
            ..
        } if message.destination_blockchain_id == blockchain_id => {
            Some(message.id(log.address, *source_blockchain_id))
        }
        TeleporterEvent::Received { .. } => None,
        _ => Some(event.message_id()),
    };
    if expected != Some(event.message_id()) {
        warn!(
            target: "indexer::evm",
            tx_index = log.tx_index,
            log_index = log.log_index,
            "skipped an ICM event whose message ID is not the messenger's for this chain"
        );
        return None;
    }
    Some(IcmLog {
        tx_index: log.tx_index,
        contract: log.address,
        event,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::teleporter::{FeeInfo, TeleporterMessage};
    use firn_store::types::{Address, U256};

    fn message(destination: Id) -> TeleporterMessage {
        TeleporterMessage {
            nonce: U256::from(1),
            origin_sender: Address::repeat_byte(1),
            destination_blockchain_id: destination,
            destination_address: Address::repeat_byte(2),
            required_gas_limit: U256::from(100_000),
            allowed_relayers: Vec::new(),
            receipts: Vec::new(),
            message: b"hi".to_vec(),
        }
    }

    fn log(address: Address, event: &TeleporterEvent) -> EvmLog {
        EvmLog {
            tx_index: 3,
            log_index: 4,
            address,
            topics: event.topics(),
            data: event.data(),
        }
    }

    #[test]
    fn sends_and_deliveries_must_carry_the_messengers_id() {
        let (here, there) = (Id([1; 32]), Id([2; 32]));
        let sent = |message_id| TeleporterEvent::Sent {
            message_id,
            message: message(there),
            fee: FeeInfo {
                token: Address::ZERO,
                amount: U256::ZERO,
            },
        };
        let good = sent(message(there).id(MESSENGER_V1, here));
        let decoded = decode(here, &log(MESSENGER_V1, &good)).expect("the messenger's send");
        assert_eq!((decoded.tx_index, decoded.event), (3, good.clone()));
        // The same log from another contract, or claiming another chain's ID, is not taken.
        assert_eq!(decode(here, &log(Address::repeat_byte(9), &good)), None);
        assert_eq!(decode(there, &log(MESSENGER_V1, &good)), None);
        assert_eq!(decode(here, &log(MESSENGER_V1, &sent(Id([7; 32])))), None);

        let received = |source, message_id| TeleporterEvent::Received {
            message_id,
            source_blockchain_id: source,
            deliverer: Address::repeat_byte(3),
            reward_redeemer: Address::repeat_byte(4),
            message: message(there),
        };
        let id = message(there).id(MESSENGER_V1, here);
        assert!(decode(there, &log(MESSENGER_V1, &received(here, id))).is_some());
        // A delivery of a message to another chain is not this chain's.
        assert_eq!(decode(here, &log(MESSENGER_V1, &received(here, id))), None);
        // Nor one whose ID names another source.
        assert_eq!(
            decode(there, &log(MESSENGER_V1, &received(Id([5; 32]), id))),
            None
        );
    }
}
