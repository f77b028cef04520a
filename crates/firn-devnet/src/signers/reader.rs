//! The devnet side of [`JustificationSource`]: accepted txs and L1 validations, for building the
//! P-Chain message an L1 tx justifies.

use super::DevnetSigners;
use crate::vm::TxStatus;
use firn_aggregator::pchain::preimage_in_tx;
use firn_aggregator::{BoxFuture, JustificationSource, NetworkError};
use firn_core::ids::Id;
use firn_core::pchain::tx::UnsignedTx;
use firn_core::warp::acp118::Preimage;

impl JustificationSource for DevnetSigners {
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
        (0..=self.chain.height()).find_map(|height| {
            let block = self.chain.block_by_height(height)?;
            block
                .block
                .txs()
                .find_map(|tx| preimage_in_tx(tx.unsigned(), validation_id))
        })
    }
}
