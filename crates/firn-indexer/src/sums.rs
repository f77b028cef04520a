//! Per-asset amounts of a primary-network tx (its inputs, its outputs, its stakes), and what it
//! burned: its inputs less everything it put anywhere. Shared by the P- and X-Chain derivers.

use std::collections::BTreeMap;

use firn_core::ids::Id;

/// Per-asset sums.
pub(crate) type Sums = BTreeMap<Id, u128>;

pub(crate) fn add(sums: &mut Sums, asset: Id, amount: u64) {
    *sums.entry(asset).or_default() += u128::from(amount);
}

/// Per asset, what `inputs` hold beyond all of `spent` (outputs, stakes, balances paid): the
/// fee burned. Assets that come out even or ahead (created, minted) are left out.
pub(crate) fn burned(inputs: &Sums, spent: &[&Sums]) -> Sums {
    let mut burned = inputs.clone();
    for sums in spent {
        for (asset, v) in *sums {
            let e = burned.entry(*asset).or_default();
            *e = e.saturating_sub(*v);
        }
    }
    burned.retain(|_, v| *v > 0);
    burned
}
