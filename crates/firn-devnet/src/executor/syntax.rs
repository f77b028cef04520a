//! Syntactic checks that need no state: network and chain IDs, memo, output and input
//! well-formedness and canonical order (AvalancheGo's `SyntacticVerify`).

use crate::error::{FxError, TxError};
use firn_core::codec;
use firn_core::pchain::fx::{Input, Output, OutputOwners, TransferableInput, TransferableOutput};
use firn_core::pchain::tx::BaseTx;
use firn_core::warp::messages::PChainOwner;
use std::cmp::Ordering;

/// Sorts inputs canonically: by tx ID, then output index.
pub fn sort_inputs(ins: &mut [TransferableInput]) {
    ins.sort_by_key(|a| (a.tx_id, a.output_index));
}

/// Checks secp256k1fx `OutputOwners.Verify`.
pub fn verify_owners(o: &OutputOwners) -> Result<(), &'static str> {
    if o.threshold as usize > o.addresses.len() {
        return Err("output is unspendable");
    }
    if o.threshold == 0 && !o.addresses.is_empty() {
        return Err("output representation should be optimized");
    }
    if o.addresses.windows(2).any(|w| w[0] >= w[1]) {
        return Err("addresses not sorted and unique");
    }
    Ok(())
}

/// The OutputOwners equivalent of a P-Chain owner.
pub fn pchain_owner(o: &PChainOwner) -> OutputOwners {
    OutputOwners {
        locktime: 0,
        threshold: o.threshold,
        addresses: o.addresses.clone(),
    }
}

pub(crate) fn verify_output(o: &TransferableOutput) -> Result<(), TxError> {
    let t = o.output.transfer();
    if let Output::Locked(l) = &o.output
        && l.locktime == 0
    {
        return Err(TxError::InvalidOutput("invalid locktime"));
    }
    if t.amount == 0 {
        return Err(TxError::InvalidOutput("output has no value"));
    }
    verify_owners(&t.owners).map_err(TxError::InvalidOutput)
}

/// Checks sig indices are sorted and unique.
pub fn verify_sig_indices(indices: &[u32]) -> Result<(), FxError> {
    if indices.windows(2).any(|w| w[0] >= w[1]) {
        return Err(FxError::IndicesNotSortedUnique);
    }
    Ok(())
}

pub(crate) fn verify_input(i: &TransferableInput) -> Result<(), TxError> {
    if let Input::Locked(l) = &i.input
        && l.locktime == 0
    {
        return Err(TxError::InvalidInput("invalid locktime"));
    }
    let t = i.input.transfer();
    if t.amount == 0 {
        return Err(TxError::InvalidInput("input has no value"));
    }
    verify_sig_indices(&t.sig_indices)
        .map_err(|_| TxError::InvalidInput("address indices not sorted and unique"))
}

/// Checks that outputs are well formed and sorted.
pub fn verify_outputs(outs: &[TransferableOutput]) -> Result<(), TxError> {
    for o in outs {
        verify_output(o)?;
    }
    if outs
        .windows(2)
        .any(|w| w[0].canonical_cmp(&w[1]) == Ordering::Greater)
    {
        return Err(TxError::OutputsNotSorted);
    }
    Ok(())
}

/// The BaseTx checks every tx starts with, Durango's empty memo included.
pub fn verify_base(
    base: &BaseTx,
    network_id: u32,
    chain_id: &firn_core::ids::Id,
) -> Result<(), TxError> {
    if base.network_id != network_id {
        return Err(TxError::WrongNetworkId);
    }
    if base.blockchain_id != *chain_id {
        return Err(TxError::WrongChainId);
    }
    for i in &base.inputs {
        verify_input(i)?;
    }
    verify_outputs(&base.outputs)?;
    if base
        .inputs
        .windows(2)
        .any(|w| (w[0].tx_id, w[0].output_index) >= (w[1].tx_id, w[1].output_index))
    {
        return Err(TxError::InputsNotSortedUnique);
    }
    if !base.memo.is_empty() {
        return Err(TxError::MemoTooLarge(base.memo.len()));
    }
    Ok(())
}

/// sha256 of an owner's codec bytes: how AvalancheGo keys locked amounts by owner.
pub fn owner_id(o: &OutputOwners) -> firn_core::ids::Id {
    firn_core::ids::Id::hash_of(&codec::to_bytes(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::ids::{Id, ShortId};
    use firn_core::pchain::fx::TransferOutput;

    fn out(amount: u64, addr: u8) -> TransferableOutput {
        TransferableOutput {
            asset_id: Id([1; 32]),
            output: Output::Transfer(TransferOutput {
                amount,
                owners: OutputOwners {
                    locktime: 0,
                    threshold: 1,
                    addresses: vec![ShortId([addr; 20])],
                },
            }),
        }
    }

    #[test]
    fn sorted_outputs_verify_and_unsorted_do_not() {
        let mut outs = vec![out(9, 1), out(3, 2), out(5, 1)];
        assert_eq!(verify_outputs(&outs), Err(TxError::OutputsNotSorted));
        TransferableOutput::sort_canonical(&mut outs);
        assert_eq!(verify_outputs(&outs), Ok(()));
        assert_eq!(
            verify_outputs(&[out(0, 1)]),
            Err(TxError::InvalidOutput("output has no value"))
        );
    }

    #[test]
    fn owners_rules_match_secp256k1fx() {
        let mut o = OutputOwners {
            locktime: 0,
            threshold: 2,
            addresses: vec![ShortId([1; 20])],
        };
        assert_eq!(verify_owners(&o), Err("output is unspendable"));
        o.threshold = 0;
        assert_eq!(
            verify_owners(&o),
            Err("output representation should be optimized")
        );
        o.threshold = 1;
        o.addresses.push(ShortId([0; 20]));
        assert_eq!(verify_owners(&o), Err("addresses not sorted and unique"));
    }
}
