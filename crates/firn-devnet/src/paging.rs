//! The paging every `getUTXOs` shares: UTXOs of several addresses, address by address in
//! order, each address's by UTXO ID, a UTXO owned by two of them listed once, resumed after
//! the `(address, UTXO ID)` the last page ended at.

use firn_core::ids::{Id, ShortId};
use std::collections::HashSet;

/// Up to `limit` UTXOs of `addresses` after `start` (exclusive), and where the next page
/// starts (`None` when this one is the last). `ids_of(address, after)` gives an address's
/// UTXO IDs in order, after `after` when given; `get` reads a UTXO.
pub fn page_by_address<U, I>(
    addresses: &[ShortId],
    start: Option<(ShortId, Id)>,
    limit: usize,
    mut ids_of: impl FnMut(ShortId, Option<Id>) -> I,
    get: impl Fn(&Id) -> Option<U>,
) -> (Vec<U>, Option<(ShortId, Id)>)
where
    I: Iterator<Item = Id>,
{
    let mut wanted = addresses.to_vec();
    wanted.sort();
    wanted.dedup();
    let mut seen = HashSet::new();
    let mut page = Vec::new();
    let mut last = None;
    for address in wanted {
        let after = match start {
            Some((a, _)) if address < a => continue,
            Some((a, id)) if a == address => Some(id),
            _ => None,
        };
        for id in ids_of(address, after) {
            if page.len() >= limit {
                return (page, last);
            }
            last = Some((address, id));
            if seen.insert(id)
                && let Some(u) = get(&id)
            {
                page.push(u);
            }
        }
    }
    (page, None)
}
