//! Who held a token over a span of blocks, replayed from its transfers (the Looking Glass's
//! composite query): every holder's amount is folded from the token's transfers in chain
//! order, and judged at the end of each block of the span.
//!
//! An ERC-20 holder's amount is its balance; a collection's (ERC-721 and ERC-1155) is how many
//! of its tokens it holds. Holdings fold as the index folds them for the balance lists (so the
//! two agree): a sender loses at most what it holds, a recipient gains the amount, an ERC-721
//! token counts once per holder. A holder qualifies with an amount of at least the minimum,
//! and above zero.

use std::collections::{BTreeSet, HashMap, HashSet};

use firn_store::rows::evm::TokenStandard;
use firn_store::rows::metrics::TokenMove;
use firn_store::types::{Address, U256};

/// How long a holder must have held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Span {
    /// At the span's start and at the end of every block in it.
    Throughout,
    /// At the span's start or at the end of some block in it.
    AtSomePoint,
}

/// The replay of one token's holders over blocks `start..=end`.
#[derive(Debug)]
pub(super) struct Replay {
    start: u64,
    min: U256,
    span: Span,
    /// Each holder's amount: the sum of its holdings.
    amounts: HashMap<Address, U256>,
    /// Holdings by holder and token ID (none for ERC-20).
    held: HashMap<(Address, Option<U256>), U256>,
    block: Option<u64>,
    changed: HashSet<Address>,
    started: bool,
    qualified: HashSet<Address>,
}

impl Replay {
    /// A replay judging blocks from `start` on (moves after the span's end must not be
    /// applied) against `min`.
    pub(super) fn new(start: u64, min: U256, span: Span) -> Self {
        Self {
            start,
            min: min.max(U256::from(1u8)),
            span,
            amounts: HashMap::new(),
            held: HashMap::new(),
            block: None,
            changed: HashSet::new(),
            started: false,
            qualified: HashSet::new(),
        }
    }

    /// Applies the next transfer, in chain order.
    pub(super) fn apply(&mut self, m: &TokenMove) {
        if self.block != Some(m.key.number) {
            self.close_block();
            self.block = Some(m.key.number);
            if !self.started && m.key.number >= self.start {
                self.start_span();
            }
        }
        let (id, amount) = match (m.standard, m.token_id) {
            (TokenStandard::Erc20, _) => (None, m.value),
            (TokenStandard::Erc721, Some(id)) => (Some(id), U256::from(1u8)),
            (TokenStandard::Erc1155, Some(id)) => (Some(id), m.value),
            // A collectible transfer without a token ID moves nothing.
            (_, None) => return,
        };
        if amount.is_zero() {
            return;
        }
        if m.from != Address::ZERO {
            self.hold(m.from, id, |h| h.saturating_sub(amount));
        }
        if m.to != Address::ZERO {
            let erc721 = m.standard == TokenStandard::Erc721;
            self.hold(m.to, id, |h| {
                if erc721 {
                    amount
                } else {
                    h.saturating_add(amount)
                }
            });
        }
    }

    /// The holders that qualified.
    pub(super) fn finish(mut self) -> BTreeSet<Address> {
        self.close_block();
        if !self.started {
            self.start_span();
        }
        self.qualified.into_iter().collect()
    }

    fn qualifies(&self, a: &Address) -> bool {
        self.amounts.get(a).is_some_and(|v| *v >= self.min)
    }

    /// The holders at the span's start: everything applied so far is from earlier blocks.
    fn start_span(&mut self) {
        self.started = true;
        self.qualified = self
            .amounts
            .iter()
            .filter(|(_, v)| **v >= self.min)
            .map(|(a, _)| *a)
            .collect();
    }

    /// Judges the holders the block just applied changed.
    fn close_block(&mut self) {
        let changed = std::mem::take(&mut self.changed);
        if !self.started {
            return;
        }
        for a in changed {
            match (self.span, self.qualifies(&a)) {
                (Span::AtSomePoint, true) => {
                    self.qualified.insert(a);
                }
                (Span::Throughout, false) => {
                    self.qualified.remove(&a);
                }
                _ => {}
            }
        }
    }

    /// Sets `holder`'s holding of `id` to `to(its holding)` and its amount with it.
    fn hold(&mut self, holder: Address, id: Option<U256>, to: impl Fn(U256) -> U256) {
        let before = self.held.get(&(holder, id)).copied().unwrap_or_default();
        let after = to(before);
        if after.is_zero() {
            self.held.remove(&(holder, id));
        } else {
            self.held.insert((holder, id), after);
        }
        let amount = self.amounts.get(&holder).copied().unwrap_or_default();
        let amount = amount.saturating_sub(before).saturating_add(after);
        if amount.is_zero() {
            self.amounts.remove(&holder);
        } else {
            self.amounts.insert(holder, amount);
        }
        self.changed.insert(holder);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_store::rows::metrics::TransferKey;

    fn a(n: u8) -> Address {
        Address::new([n; 20])
    }

    fn mv(
        number: u64,
        standard: TokenStandard,
        from: u8,
        to: u8,
        id: Option<u64>,
        value: u64,
    ) -> TokenMove {
        TokenMove {
            key: TransferKey {
                number,
                log_index: 0,
                batch_index: 0,
            },
            standard,
            from: if from == 0 { Address::ZERO } else { a(from) },
            to: if to == 0 { Address::ZERO } else { a(to) },
            token_id: id.map(U256::from),
            value: U256::from(value),
        }
    }

    fn run(start: u64, min: u64, span: Span, moves: &[TokenMove]) -> Vec<Address> {
        let mut r = Replay::new(start, U256::from(min), span);
        for m in moves {
            r.apply(m);
        }
        r.finish().into_iter().collect()
    }

    #[test]
    fn erc20_holders_throughout_and_at_some_point() {
        use TokenStandard::Erc20;
        let moves = [
            // Before the span: 1 gets 100, 2 gets 50.
            mv(1, Erc20, 0, 1, None, 100),
            mv(2, Erc20, 0, 2, None, 50),
            // In it: 1 dips to 40 in block 5, 3 gets 70 in block 6, 2 sends all away.
            mv(5, Erc20, 1, 4, None, 60),
            mv(6, Erc20, 0, 3, None, 70),
            mv(6, Erc20, 2, 4, None, 50),
            // Within one block a dip and a recovery do not count.
            mv(7, Erc20, 3, 5, None, 70),
            mv(7, Erc20, 5, 3, None, 70),
        ];
        assert_eq!(run(3, 50, Span::Throughout, &moves), Vec::<Address>::new());
        assert_eq!(run(3, 40, Span::Throughout, &moves), vec![a(1)]);
        assert_eq!(
            run(3, 50, Span::AtSomePoint, &moves),
            vec![a(1), a(2), a(3), a(4)]
        );
        // A span after every move: the holders at its start.
        assert_eq!(run(9, 1, Span::Throughout, &moves), vec![a(1), a(3), a(4)]);
        // Zero as the minimum still asks for something held.
        assert_eq!(run(9, 0, Span::AtSomePoint, &moves), vec![a(1), a(3), a(4)]);
    }

    #[test]
    fn collections_count_tokens_as_the_index_folds_them() {
        use TokenStandard::{Erc721, Erc1155};
        let moves = [
            mv(1, Erc721, 0, 1, Some(7), 1),
            // A forged transfer of token 7 "from" 3, who holds nothing: 2 holds it, 1 too.
            mv(2, Erc721, 3, 2, Some(7), 1),
            mv(2, Erc1155, 0, 3, Some(1), 5),
            // 3 sends more than it holds: it is left with nothing, 4 has the amount.
            mv(4, Erc1155, 3, 4, Some(1), 9),
            mv(5, Erc721, 2, 0, Some(7), 1),
            // Receiving an ERC-721 token twice holds it once.
            mv(5, Erc721, 0, 1, Some(7), 1),
        ];
        assert_eq!(
            run(3, 1, Span::AtSomePoint, &moves),
            vec![a(1), a(2), a(3), a(4)]
        );
        assert_eq!(run(3, 1, Span::Throughout, &moves), vec![a(1)]);
        assert_eq!(run(6, 2, Span::Throughout, &moves), vec![a(4)]);
        assert_eq!(run(6, 10, Span::Throughout, &moves), Vec::<Address>::new());
    }
}
