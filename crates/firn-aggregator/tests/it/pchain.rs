//! A bare L1ValidatorRegistrationJustification names the message it justifies.

use firn_aggregator::pchain::{TxMessageError, message_for_justification};
use firn_core::ids::Id;
use firn_core::network::P_CHAIN_ID;
use firn_core::warp::acp118::{L1ValidatorRegistrationJustification, Preimage, SubnetIdIndex};
use firn_core::warp::messages::{L1Message, L1ValidatorRegistration};

#[test]
fn a_conversion_index_justifies_an_unregistered_validation() {
    let subnet = Id([4; 32]);
    let j = L1ValidatorRegistrationJustification::from(Preimage::ConvertSubnetToL1TxData(
        SubnetIdIndex::new(subnet, 2),
    ));
    let msg = message_for_justification(5, &j.bytes()).unwrap();
    assert_eq!((msg.network_id, msg.source_chain_id), (5, P_CHAIN_ID));
    assert_eq!(
        L1Message::from_unsigned_message(&msg).unwrap(),
        L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
            validation_id: subnet.append(2),
            registered: false,
        })
    );
}

#[test]
fn justifications_that_name_nothing_are_refused() {
    assert!(matches!(
        message_for_justification(5, &[]),
        Err(TxMessageError::BadJustification(_))
    ));
    // A RegisterL1Validator preimage that is not one.
    let j = L1ValidatorRegistrationJustification::from(Preimage::RegisterL1ValidatorMessage(vec![
        0, 0, 0, 0, 0, 9,
    ]));
    assert!(matches!(
        message_for_justification(5, &j.bytes()),
        Err(TxMessageError::BadJustification(_))
    ));
}
