//! A readable JSON form of Warp messages, with the payload and any P-Chain L1 message decoded.
//! AvalancheGo has no JSON for these; the shape is firn's, used by `firn decode` and the APIs.

use super::messages::{L1Message, PChainOwner};
use super::payload::Payload;
use super::{BitSetSignature, UnsignedMessage};
use crate::encoding::hex_encode_nc;
use crate::network::P_CHAIN_ID;
use serde_json::{Value, json};

fn owner(o: &PChainOwner) -> Value {
    json!({ "threshold": o.threshold, "addresses": o.addresses })
}

/// The JSON of a P-Chain L1 message, tagged by its `type`.
pub fn l1_message_to_json(msg: &L1Message) -> Value {
    match msg {
        L1Message::SubnetToL1Conversion(m) => {
            json!({ "type": msg.type_name(), "conversionID": m.id })
        }
        L1Message::RegisterL1Validator(m) => json!({
            "type": msg.type_name(),
            "validationID": m.validation_id(),
            "subnetID": m.subnet_id,
            "nodeID": m.node_id,
            "blsPublicKey": hex_encode_nc(&m.bls_public_key),
            "expiry": m.expiry,
            "remainingBalanceOwner": owner(&m.remaining_balance_owner),
            "disableOwner": owner(&m.disable_owner),
            "weight": m.weight,
        }),
        L1Message::L1ValidatorRegistration(m) => json!({
            "type": msg.type_name(),
            "validationID": m.validation_id,
            "registered": m.registered,
        }),
        L1Message::L1ValidatorWeight(m) => json!({
            "type": msg.type_name(),
            "validationID": m.validation_id,
            "nonce": m.nonce,
            "weight": m.weight,
        }),
    }
}

fn payload_to_json(msg: &UnsignedMessage) -> Value {
    match Payload::from_bytes(&msg.payload) {
        Ok(Payload::Hash(hash)) => json!({ "type": "Hash", "hash": hash }),
        Ok(Payload::AddressedCall(call)) => {
            let mut v = json!({
                "type": "AddressedCall",
                "sourceAddress": hex_encode_nc(&call.source_address),
                "payload": hex_encode_nc(&call.payload),
            });
            if msg.source_chain_id == P_CHAIN_ID
                && call.source_address.is_empty()
                && let Ok(l1) = L1Message::from_bytes(&call.payload)
            {
                v["l1Message"] = l1_message_to_json(&l1);
            }
            v
        }
        Err(_) => json!({ "type": "unknown", "bytes": hex_encode_nc(&msg.payload) }),
    }
}

/// The JSON of a message: its ID, network, source chain, decoded payload and, when signed,
/// the signers' canonical indices and the aggregate signature.
pub fn message_to_json(msg: &UnsignedMessage, signature: Option<&BitSetSignature>) -> Value {
    let mut v = json!({
        "id": msg.id(),
        "networkID": msg.network_id,
        "sourceChainID": msg.source_chain_id,
        "payload": payload_to_json(msg),
    });
    if let Some(sig) = signature {
        let signers = match sig.signer_indices() {
            Ok(indices) => json!(indices),
            Err(e) => json!(format!("invalid: {e}")),
        };
        v["signature"] = json!({ "signers": signers, "signature": hex_encode_nc(&sig.signature) });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Id;
    use crate::warp::messages::L1ValidatorWeight;

    #[test]
    fn pchain_messages_show_their_l1_message() {
        let weight = L1Message::L1ValidatorWeight(L1ValidatorWeight {
            validation_id: Id([1; 32]),
            nonce: 2,
            weight: 3,
        });
        let unsigned = weight.to_unsigned_message(5);
        let json = message_to_json(&unsigned, None);
        assert_eq!(json["networkID"], 5);
        assert_eq!(json["payload"]["type"], "AddressedCall");
        assert_eq!(json["payload"]["l1Message"]["type"], "L1ValidatorWeight");
        assert_eq!(json["payload"]["l1Message"]["nonce"], 2);
        assert_eq!(json["id"], unsigned.id().to_string());
        assert!(json.get("signature").is_none());
    }

    #[test]
    fn opaque_payloads_are_shown_as_hex() {
        let msg = UnsignedMessage::new(1, Id([2; 32]), vec![0xde, 0xad]);
        assert_eq!(
            message_to_json(&msg, None)["payload"],
            json!({ "type": "unknown", "bytes": "0xdead" })
        );
    }
}
