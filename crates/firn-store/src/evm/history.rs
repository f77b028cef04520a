//! Token balances at a past block. The store keeps each holder's balances at the chain's
//! newest block and every transfer; a past block's balances are the newest ones with the
//! transfers since undone: what the holder received after the block is taken off, what it
//! sent is added back. For standard tokens that is `balanceOf` at that block.
//!
//! A read is bounded: at most [`MAX_HELD`] holdings and [`MAX_REPLAYED`] transfers since the
//! block, past either [`StoreError::TooMuchToReplay`]. The holdings and the transfers are
//! separate reads; when a commit lands between them, they are read again.

use std::collections::BTreeMap;

use crate::error::{Result, StoreError};
use crate::page::{CollectibleCursor, EventCursor, MAX_PAGE_LIMIT, Page, PageRequest, TokenCursor};
use crate::rows::ChainKey;
use crate::rows::evm::{
    CollectibleRecord, Erc20BalanceRecord, NftMetadata, Token, TokenStandard, TransferRecord,
};
use crate::store::Store;
use crate::traits::{CursorStore, EvmReader, TransferFilter};
use crate::types::{Address, U256};

/// Holdings of one holder a past-block read takes in, at most.
pub const MAX_HELD: usize = 100_000;
/// Transfers since the block a past-block read replays, at most.
pub const MAX_REPLAYED: usize = 100_000;
/// Reads of holdings and transfers before giving up on a chain that keeps committing.
const ATTEMPTS: usize = 3;

/// One balance as replayed, with what is shown beside it.
#[derive(Debug, Clone)]
struct Holding {
    balance: U256,
    token_info: Option<Token>,
    metadata: Option<NftMetadata>,
}

/// (contract, token ID): no ID for ERC-20.
type Key = (Address, Option<U256>);

impl Store {
    /// `owner`'s ERC-20 balances at `block`, a page by contract.
    pub(super) async fn erc20_balances_at(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        contracts: &[Address],
        page: &PageRequest<TokenCursor>,
    ) -> Result<Page<Erc20BalanceRecord, TokenCursor>> {
        let limit = page.checked_limit()?;
        let held = self
            .holdings_at(chain_id, owner, block, TokenStandard::Erc20)
            .await?;
        let after = page.after.map(|c| c.token);
        let rows = held
            .into_iter()
            .filter(|((token, _), _)| contracts.is_empty() || contracts.contains(token))
            .filter(|((token, _), _)| after.is_none_or(|a| *token > a))
            .take(
                usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .saturating_add(1),
            )
            .map(|((token, _), h)| Erc20BalanceRecord {
                chain_id,
                owner,
                token,
                balance: h.balance,
                token_info: h.token_info,
            })
            .collect();
        Ok(Page::from_rows(rows, limit, |b| TokenCursor {
            token: b.token,
        }))
    }

    /// `owner`'s ERC-1155 balances at `block`, a page by contract then token ID.
    pub(super) async fn erc1155_balances_at(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        contract: Option<Address>,
        page: &PageRequest<CollectibleCursor>,
    ) -> Result<Page<CollectibleRecord, CollectibleCursor>> {
        let limit = page.checked_limit()?;
        let held = self
            .holdings_at(chain_id, owner, block, TokenStandard::Erc1155)
            .await?;
        let after = page.after.map(|c| (c.contract, c.token_id));
        let rows = held
            .into_iter()
            .filter_map(|((token, id), h)| Some((token, id?, h)))
            .filter(|(token, _, _)| contract.is_none_or(|c| c == *token))
            .filter(|(token, id, _)| after.is_none_or(|a| (*token, *id) > a))
            .take(
                usize::try_from(limit)
                    .unwrap_or(usize::MAX)
                    .saturating_add(1),
            )
            .map(|(token, token_id, h)| CollectibleRecord {
                chain_id,
                owner,
                token,
                token_id,
                standard: TokenStandard::Erc1155,
                balance: h.balance,
                token_info: h.token_info,
                metadata: h.metadata,
            })
            .collect();
        Ok(Page::from_rows(rows, limit, |c| CollectibleCursor {
            contract: c.token,
            token_id: c.token_id,
        }))
    }

    /// `owner`'s non-zero balances of `standard` (ERC-20 or ERC-1155) at `block`.
    async fn holdings_at(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        standard: TokenStandard,
    ) -> Result<BTreeMap<Key, Holding>> {
        for _ in 0..ATTEMPTS {
            let head = self.find_cursor(ChainKey::Evm(chain_id)).await?;
            if head.is_none_or(|h| block > h) {
                return Err(StoreError::OutOfRange {
                    field: "block (not indexed yet)",
                    value: block.to_string(),
                });
            }
            let mut held = self.held_now(chain_id, owner, standard).await?;
            let since = self
                .transfers_since(chain_id, owner, block, standard)
                .await?;
            if self.find_cursor(ChainKey::Evm(chain_id)).await? != head {
                continue;
            }
            for t in &since {
                undo(&mut held, owner, t);
            }
            held.retain(|_, h| !h.balance.is_zero());
            return Ok(held);
        }
        Err(StoreError::Busy(format!(
            "chain {chain_id} kept committing blocks while balances at block {block} were read"
        )))
    }

    /// Every holding of `owner` in `standard` at the newest indexed block.
    async fn held_now(
        &self,
        chain_id: u64,
        owner: Address,
        standard: TokenStandard,
    ) -> Result<BTreeMap<Key, Holding>> {
        /// Where the walk through either list is.
        enum After {
            Erc20(Option<TokenCursor>),
            Collectibles(Option<CollectibleCursor>),
        }
        let mut held = BTreeMap::new();
        let mut after = match standard {
            TokenStandard::Erc20 => After::Erc20(None),
            _ => After::Collectibles(None),
        };
        loop {
            let next = match after {
                After::Erc20(after) => {
                    let request = PageRequest {
                        limit: MAX_PAGE_LIMIT,
                        after,
                    };
                    let page = self
                        .list_erc20_balances(chain_id, owner, &[], &request)
                        .await?;
                    held.extend(page.items.into_iter().map(|b| {
                        let h = Holding {
                            balance: b.balance,
                            token_info: b.token_info,
                            metadata: None,
                        };
                        ((b.token, None), h)
                    }));
                    page.next.map(|c| After::Erc20(Some(c)))
                }
                After::Collectibles(after) => {
                    let request = PageRequest {
                        limit: MAX_PAGE_LIMIT,
                        after,
                    };
                    let page = self
                        .list_collectibles(chain_id, owner, Some(standard), None, &request)
                        .await?;
                    held.extend(page.items.into_iter().map(|c| {
                        let h = Holding {
                            balance: c.balance,
                            token_info: c.token_info,
                            metadata: c.metadata,
                        };
                        ((c.token, Some(c.token_id)), h)
                    }));
                    page.next.map(|c| After::Collectibles(Some(c)))
                }
            };
            if held.len() > MAX_HELD {
                return Err(StoreError::TooMuchToReplay(format!(
                    "{owner:#x} holds more than {MAX_HELD} tokens on chain {chain_id}"
                )));
            }
            match next {
                Some(next) => after = next,
                None => return Ok(held),
            }
        }
    }

    /// `owner`'s transfers of `standard` after `block`.
    async fn transfers_since(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        standard: TokenStandard,
    ) -> Result<Vec<TransferRecord>> {
        let filter = TransferFilter {
            chain_id,
            address: owner,
            standard,
            start_block: Some(block.saturating_add(1)),
            end_block: None,
        };
        let mut all = Vec::new();
        let mut after: Option<EventCursor> = None;
        loop {
            let request = PageRequest {
                limit: MAX_PAGE_LIMIT,
                after,
            };
            let page = self.list_transfers(&filter, &request).await?;
            all.extend(page.items);
            if all.len() > MAX_REPLAYED {
                return Err(StoreError::TooMuchToReplay(format!(
                    "{owner:#x} sent or received more than {MAX_REPLAYED} transfers on chain \
                     {chain_id} since block {block}"
                )));
            }
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(all),
            }
        }
    }
}

/// Takes transfer `t`, made after the block, back out of `owner`'s holdings.
fn undo(held: &mut BTreeMap<Key, Holding>, owner: Address, t: &TransferRecord) {
    let x = &t.transfer;
    let id = x.token_id.filter(|_| x.standard != TokenStandard::Erc20);
    let h = held.entry((x.token, id)).or_insert_with(|| Holding {
        balance: U256::ZERO,
        token_info: t.token.clone(),
        metadata: t.metadata.clone(),
    });
    if x.from == owner {
        h.balance = h.balance.saturating_add(x.value);
    }
    if x.to == owner {
        h.balance = h.balance.saturating_sub(x.value);
    }
}
