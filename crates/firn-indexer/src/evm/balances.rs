//! Checks the ERC-20 balances the store folds from transfers against what the tokens'
//! `balanceOf` says. They agree for standard tokens; a rebasing token (balances that grow
//! without a `Transfer`), a fee-on-transfer token that logs the amount before its fee, or a
//! token whose events lie disagrees, and the first disagreement is stored as evidence
//! ([`firn_store::EvmWriter::add_balance_mismatch`]): the API reads that token's balances from
//! the node from then on.
//!
//! Commits note the ERC-20 tokens they touch with a few of their holders; once the follower
//! has reached the tip it asks the node for those holders' `balanceOf` at the committed
//! block and compares. The work is bounded: at most [`MAX_TOUCHED`] tokens wait, each with
//! [`HOLDERS_PER_TOKEN`] holders, and one check makes at most [`CALLS_PER_CHECK`] calls
//! (never-checked tokens first, then those checked longest ago); the rest wait for the next
//! check. A call that reverts, burns more than [`TOKEN_CALL_GAS`] or returns anything but one
//! word proves nothing and is skipped. A failed check is logged, never a reason to stop
//! indexing.

use std::collections::{BTreeMap, HashMap, HashSet};

use firn_store::rows::evm::{BalanceMismatch, TokenStandard, TokenTransfer};
use firn_store::types::{Address, U256};
use firn_store::{EvmReader, EvmWriter, MAX_LISTED_CONTRACTS, PageRequest, Store};
use tracing::{debug, warn};

use super::source::EvmSource;
use super::tokens::TOKEN_CALL_GAS;
use crate::error::Result;

/// `balanceOf(address)`.
const BALANCE_OF: [u8; 4] = [0x70, 0xa0, 0x82, 0x31];
/// Tokens waiting to be checked, at most; more are dropped until the next check.
pub const MAX_TOUCHED: usize = 4_096;
/// Holders compared per token and check.
pub const HOLDERS_PER_TOKEN: usize = 2;
/// `balanceOf` calls one check makes, at most.
pub const CALLS_PER_CHECK: usize = 64;
/// Tokens remembered as checked (for ordering) and as flagged, at most; past this the memory
/// is cleared (the store keeps the flags).
const MAX_REMEMBERED: usize = 100_000;

/// What the follower knows about its chain's ERC-20 balances between checks.
#[derive(Debug, Default)]
pub struct BalanceCheck {
    /// Tokens touched since they were last checked, with holders to compare.
    touched: BTreeMap<Address, Vec<Address>>,
    /// The block each token was last checked at (and not found to disagree).
    checked: HashMap<Address, u64>,
    /// Tokens with stored evidence: never checked again.
    flagged: HashSet<Address>,
}

/// One comparison's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Agrees,
    Disagrees { derived: U256, reported: U256 },
    Unknown,
}

impl BalanceCheck {
    /// Forgets what was noted (after a failure or a rollback: the store is the truth).
    pub fn clear(&mut self) {
        self.touched.clear();
        self.checked.clear();
    }

    /// Notes the ERC-20 tokens `transfers` (in block order) move and their latest holders
    /// (those of an earlier batch may have sent everything away since: they prove nothing).
    pub fn note<'a>(&mut self, transfers: impl DoubleEndedIterator<Item = &'a TokenTransfer>) {
        let mut renewed = HashSet::new();
        for t in transfers
            .rev()
            .filter(|t| t.standard == TokenStandard::Erc20)
        {
            if self.flagged.contains(&t.token) {
                continue;
            }
            if !self.touched.contains_key(&t.token) && self.touched.len() >= MAX_TOUCHED {
                continue;
            }
            let holders = self.touched.entry(t.token).or_default();
            if renewed.insert(t.token) {
                holders.clear();
            }
            for party in [t.to, t.from] {
                if party != Address::ZERO
                    && holders.len() < HOLDERS_PER_TOKEN
                    && !holders.contains(&party)
                {
                    holders.push(party);
                }
            }
        }
    }

    /// Compares the noted holders' balances at block `at` (the committed head) with
    /// `balanceOf` there and stores the evidence of any disagreement. Errors are logged and
    /// the pairs kept for the next check: it is not indexing.
    pub async fn check(&mut self, source: &EvmSource, store: &Store, chain_id: u64, at: u64) {
        let pairs = self.next_pairs();
        if pairs.is_empty() {
            return;
        }
        if let Err(error) = self.compare(source, store, chain_id, at, &pairs).await {
            // A node that has pruned the block's state answers at a newer one next time.
            warn!(target: "indexer::evm", chain_id, at, %error, "could not compare ERC-20 balances with balanceOf; will try again");
            for (token, holder) in pairs {
                let holders = self.touched.entry(token).or_default();
                if !holders.contains(&holder) {
                    holders.push(holder);
                }
            }
        }
    }

    async fn compare(
        &mut self,
        source: &EvmSource,
        store: &Store,
        chain_id: u64,
        at: u64,
        pairs: &[(Address, Address)],
    ) -> Result<()> {
        let calls: Vec<(Address, Vec<u8>)> = pairs
            .iter()
            .map(|(token, holder)| {
                let mut data = BALANCE_OF.to_vec();
                data.extend([0u8; 12]);
                data.extend(holder.as_slice());
                (*token, data)
            })
            .collect();
        let reported = source
            .calls_at(&calls, Some(TOKEN_CALL_GAS), Some(at))
            .await?;
        let derived = derived_balances(store, chain_id, pairs).await?;
        let mut verdicts: BTreeMap<Address, (Verdict, Address)> = BTreeMap::new();
        for (i, (token, holder)) in pairs.iter().enumerate() {
            let reported = reported.get(i).and_then(|r| one_word(r.as_deref()));
            let derived = derived.get(&(*token, *holder)).copied().unwrap_or_default();
            let verdict = match reported {
                None => Verdict::Unknown,
                Some(r) if r == derived => Verdict::Agrees,
                Some(reported) => Verdict::Disagrees { derived, reported },
            };
            let entry = verdicts.entry(*token).or_insert((verdict, *holder));
            // One disagreement decides; one unanswered call leaves the token unproven.
            match (entry.0, verdict) {
                (Verdict::Disagrees { .. }, _) => {}
                (_, Verdict::Disagrees { .. }) | (Verdict::Agrees, Verdict::Unknown) => {
                    *entry = (verdict, *holder);
                }
                _ => {}
            }
        }
        if self.checked.len() > MAX_REMEMBERED || self.flagged.len() > MAX_REMEMBERED {
            self.checked.clear();
            self.flagged.clear();
        }
        for (token, (verdict, holder)) in verdicts {
            match verdict {
                Verdict::Agrees | Verdict::Unknown => {
                    self.checked.insert(token, at);
                }
                Verdict::Disagrees { derived, reported } => {
                    let evidence = BalanceMismatch {
                        token,
                        block_number: at,
                        holder,
                        derived,
                        reported,
                    };
                    if store.add_balance_mismatch(chain_id, &evidence).await? {
                        warn!(target: "indexer::evm", chain_id, token = %format!("{token:#x}"), holder = %format!("{holder:#x}"), at, %derived, %reported, "an ERC-20 token's balanceOf disagrees with its transfers: its balances will be read from the node");
                    }
                    self.flagged.insert(token);
                    self.checked.remove(&token);
                }
            }
        }
        debug!(target: "indexer::evm", chain_id, at, calls = pairs.len(), waiting = self.touched.len(), "compared ERC-20 balances with balanceOf");
        Ok(())
    }

    /// Takes up to [`CALLS_PER_CHECK`] (token, holder) pairs off the waiting tokens: those
    /// never checked first, then those checked longest ago.
    fn next_pairs(&mut self) -> Vec<(Address, Address)> {
        let mut order: Vec<(Option<u64>, Address)> = self
            .touched
            .keys()
            .map(|t| (self.checked.get(t).copied(), *t))
            .collect();
        order.sort();
        let mut pairs = Vec::new();
        for (_, token) in order {
            let Some(holders) = self.touched.get(&token) else {
                continue;
            };
            if pairs.len() + holders.len() > CALLS_PER_CHECK {
                break;
            }
            pairs.extend(holders.iter().map(|h| (token, *h)));
            self.touched.remove(&token);
        }
        pairs
    }
}

/// A `balanceOf` answer: exactly one word.
fn one_word(data: Option<&[u8]>) -> Option<U256> {
    let bytes: [u8; 32] = data?.try_into().ok()?;
    Some(U256::from_be_bytes(bytes))
}

/// The stored (folded) balances of `pairs`, holder by holder; absent ones are zero.
async fn derived_balances(
    store: &Store,
    chain_id: u64,
    pairs: &[(Address, Address)],
) -> Result<HashMap<(Address, Address), U256>> {
    let mut by_holder: BTreeMap<Address, Vec<Address>> = BTreeMap::new();
    for (token, holder) in pairs {
        by_holder.entry(*holder).or_default().push(*token);
    }
    let mut out = HashMap::new();
    for (holder, tokens) in by_holder {
        for part in tokens.chunks(MAX_LISTED_CONTRACTS) {
            let request = PageRequest::first(MAX_LISTED_CONTRACTS as u32);
            let page = store
                .list_erc20_balances(chain_id, holder, part, &request)
                .await?;
            for b in page.items {
                out.insert((b.token, holder), b.balance);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transfer(token: u8, from: u8, to: u8, standard: TokenStandard) -> TokenTransfer {
        TokenTransfer {
            token: Address::repeat_byte(token),
            from: Address::repeat_byte(from),
            to: Address::repeat_byte(to),
            standard,
            tx_index: 0,
            log_index: 0,
            batch_index: 0,
            token_id: None,
            value: U256::from(1u64),
        }
    }

    #[test]
    fn notes_erc20_holders_and_bounds_them() {
        let mut check = BalanceCheck::default();
        let transfers = [
            transfer(1, 0, 2, TokenStandard::Erc20),
            transfer(1, 3, 4, TokenStandard::Erc20),
            transfer(1, 5, 6, TokenStandard::Erc20),
            transfer(9, 3, 4, TokenStandard::Erc721),
        ];
        check.note(transfers.iter());
        // The latest transfer's parties, the mint's zero address never; NFTs not at all.
        assert_eq!(
            check.touched.get(&Address::repeat_byte(1)),
            Some(&vec![Address::repeat_byte(6), Address::repeat_byte(5)])
        );
        assert!(!check.touched.contains_key(&Address::repeat_byte(9)));
        // A later batch's holders replace an earlier one's.
        let later = [transfer(1, 7, 8, TokenStandard::Erc20)];
        check.note(later.iter());
        assert_eq!(
            check.touched.get(&Address::repeat_byte(1)),
            Some(&vec![Address::repeat_byte(8), Address::repeat_byte(7)])
        );
        // Flagged tokens are not noted again.
        check.flagged.insert(Address::repeat_byte(1));
        check.touched.clear();
        check.note(transfers.iter());
        assert!(check.touched.is_empty());
    }

    #[test]
    fn checks_are_bounded_and_fair() {
        let mut check = BalanceCheck::default();
        let transfers: Vec<_> = (1..=100u8)
            .map(|t| transfer(t, 200, 201, TokenStandard::Erc20))
            .collect();
        check.note(transfers.iter());
        // Token 1 was checked before: it waits behind the never-checked ones.
        check.checked.insert(Address::repeat_byte(1), 7);
        let mut checks = Vec::new();
        while !check.touched.is_empty() {
            let pairs = check.next_pairs();
            assert!(!pairs.is_empty() && pairs.len() <= CALLS_PER_CHECK);
            checks.push(pairs);
        }
        assert_eq!(checks.len(), 4);
        assert!(checks[0].iter().all(|(t, _)| *t != Address::repeat_byte(1)));
        assert_eq!(checks.concat().len(), 200);
        assert_eq!(
            checks.last().and_then(|c| c.last()).map(|p| p.0),
            Some(Address::repeat_byte(1))
        );
        assert!(check.touched.is_empty());
    }

    #[test]
    fn only_one_word_is_a_balance() {
        assert_eq!(one_word(Some(&[0u8; 32])), Some(U256::ZERO));
        assert_eq!(one_word(Some(&[0u8; 64])), None);
        assert_eq!(one_word(Some(&[])), None);
        assert_eq!(one_word(None), None);
    }
}
