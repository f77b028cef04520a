//! The devnet side of [`PChainReader`]: accepted txs and L1 validations, for building the
//! P-Chain message an L1 tx justifies.

use super::DevnetSigners;
use crate::vm::TxStatus;
use firn_aggregator::{BoxFuture, NetworkError, PChainReader};
use firn_core::ids::Id;
use firn_core::pchain::tx::UnsignedTx;
use firn_core::warp::Message;
use firn_core::warp::acp118::{Preimage, SubnetIdIndex};
use firn_core::warp::messages::L1Message;
use firn_core::warp::payload::Payload;

impl PChainReader for DevnetSigners {
    fn tx(&self, tx_id: Id) -> BoxFuture<'_, Result<Option<UnsignedTx>, NetworkError>> {
        Box::pin(async move {
            Ok(self
                .chain
                .tx(&tx_id)
                .filter(|info| info.status == TxStatus::Committed)
                .map(|info| info.tx.unsigned().clone()))
        })
    }

    fn l1_validation_exists(&self, validation_id: Id) -> BoxFuture<'_, Result<bool, NetworkError>> {
        Box::pin(async move { Ok(self.chain.l1_validator(&validation_id).is_some()) })
    }

    fn registration_preimage(
        &self,
        validation_id: Id,
    ) -> BoxFuture<'_, Result<Option<Preimage>, NetworkError>> {
        Box::pin(async move { Ok(self.find_preimage(&validation_id)) })
    }
}

impl DevnetSigners {
    /// Scans the accepted blocks for the tx that created `validation_id`: a devnet holds few
    /// enough blocks that no index is worth keeping for this rare question.
    fn find_preimage(&self, validation_id: &Id) -> Option<Preimage> {
        for height in 0..=self.chain.height() {
            let block = self.chain.block_by_height(height)?;
            for tx in block.block.txs() {
                match tx.unsigned() {
                    UnsignedTx::ConvertSubnetToL1(t) => {
                        for index in 0..t.validators.len() as u32 {
                            if t.subnet_id.append(index) == *validation_id {
                                return Some(Preimage::ConvertSubnetToL1TxData(
                                    SubnetIdIndex::new(t.subnet_id, index),
                                ));
                            }
                        }
                    }
                    UnsignedTx::RegisterL1Validator(t) => {
                        if let Some(L1Message::RegisterL1Validator(reg)) = embedded(&t.message)
                            && reg.validation_id() == *validation_id
                        {
                            return Some(Preimage::RegisterL1ValidatorMessage(reg.bytes()));
                        }
                    }
                    _ => {}
                }
            }
        }
        None
    }
}

fn embedded(bytes: &[u8]) -> Option<L1Message> {
    let msg = Message::from_bytes(bytes).ok()?;
    match Payload::from_bytes(&msg.unsigned.payload).ok()? {
        Payload::AddressedCall(call) => L1Message::from_bytes(&call.payload).ok(),
        Payload::Hash(_) => None,
    }
}
