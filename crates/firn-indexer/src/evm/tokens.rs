//! Token contract metadata for contracts first seen in a transfer: `name()`, `symbol()` and
//! (ERC-20) `decimals()` read with `eth_call`. A call that reverts, returns garbage or burns
//! more than [`TOKEN_CALL_GAS`] leaves the field empty: many tokens omit them, and a contract
//! must not be able to slow the commit down. Names are cut to [`MAX_NAME_CHARS`], symbols to
//! [`MAX_SYMBOL_CHARS`] characters.

use std::collections::{BTreeMap, HashSet};

use firn_store::rows::evm::{Token, TokenStandard, TokenTransfer};
use firn_store::types::Address;
use firn_store::{EvmReader, Store};

use super::nft::{MAX_NAME_CHARS, MAX_SYMBOL_CHARS, bounded_text};
use super::source::EvmSource;
use super::transfers::{small_word, word};
use crate::error::Result;

const NAME: [u8; 4] = [0x06, 0xfd, 0xde, 0x03];
const SYMBOL: [u8; 4] = [0x95, 0xd8, 0x9b, 0x41];
const DECIMALS: [u8; 4] = [0x31, 0x3c, 0xe5, 0x67];
/// Gas each call may use: a hundred times what a stored string costs to return.
pub const TOKEN_CALL_GAS: u64 = 1_000_000;

/// Token addresses remembered at most (~5 MB): a public chain has millions of tokens, and one
/// forgotten costs only a store read when it shows up again.
const MAX_KNOWN: usize = 100_000;

/// The token contracts already known (stored, or read in this run), at most [`MAX_KNOWN`].
#[derive(Debug, Default)]
pub struct KnownTokens {
    seen: HashSet<Address>,
}

impl KnownTokens {
    /// Forgets everything (after a failure: the store is the truth).
    pub fn clear(&mut self) {
        self.seen.clear();
    }

    fn remember(&mut self, token: Address) {
        if self.seen.len() >= MAX_KNOWN {
            self.seen.clear();
        }
        self.seen.insert(token);
    }

    /// Reads the metadata of every token in `transfers` not seen before.
    pub async fn new_tokens(
        &mut self,
        source: &EvmSource,
        store: &Store,
        chain_id: u64,
        transfers: &[&TokenTransfer],
    ) -> Result<Vec<Token>> {
        let mut fresh: BTreeMap<Address, TokenStandard> = BTreeMap::new();
        for t in transfers {
            if self.seen.contains(&t.token) || fresh.contains_key(&t.token) {
                continue;
            }
            if store.find_token(chain_id, t.token).await?.is_some() {
                self.remember(t.token);
                continue;
            }
            fresh.insert(t.token, t.standard);
        }
        if fresh.is_empty() {
            return Ok(Vec::new());
        }
        let mut calls = Vec::with_capacity(fresh.len() * 3);
        for address in fresh.keys() {
            calls.push((*address, NAME.to_vec()));
            calls.push((*address, SYMBOL.to_vec()));
            calls.push((*address, DECIMALS.to_vec()));
        }
        let out = source.calls(&calls, Some(TOKEN_CALL_GAS)).await?;
        let mut tokens = Vec::with_capacity(fresh.len());
        for (i, (address, standard)) in fresh.into_iter().enumerate() {
            let text = |k: usize, max: usize| {
                out.get(i * 3 + k)
                    .and_then(|o| o.as_deref())
                    .and_then(abi_string)
                    .map(|s| bounded_text(&s, max))
                    .unwrap_or_default()
            };
            let decimals = match standard {
                TokenStandard::Erc20 => out
                    .get(i * 3 + 2)
                    .and_then(|o| o.as_deref())
                    .and_then(|d| word(d, 0))
                    .and_then(|w| u8::try_from(w).ok()),
                _ => None,
            };
            tokens.push(Token {
                address,
                standard,
                name: text(0, MAX_NAME_CHARS),
                symbol: text(1, MAX_SYMBOL_CHARS),
                decimals,
            });
            self.remember(address);
        }
        Ok(tokens)
    }
}

/// An ABI-encoded `string` return value; also the old `bytes32` style (MKR, SAI).
pub fn abi_string(data: &[u8]) -> Option<String> {
    if data.len() == 32 {
        let end = data.iter().position(|b| *b == 0).unwrap_or(32);
        return String::from_utf8(data[..end].to_vec()).ok();
    }
    let offset = small_word(data, 0)?;
    if offset % 32 != 0 {
        return None;
    }
    let len = small_word(data, offset / 32)?;
    let start = offset.checked_add(32)?;
    let bytes = data.get(start..start.checked_add(len)?)?;
    let s = String::from_utf8_lossy(bytes);
    // Control characters (NULs from sloppy contracts) are not part of a name.
    Some(s.chars().filter(|c| !c.is_control()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_tokens_stay_bounded() {
        let mut known = KnownTokens::default();
        for i in 0..=MAX_KNOWN as u64 {
            let mut a = [0u8; 20];
            a[12..].copy_from_slice(&i.to_be_bytes());
            known.remember(Address::new(a));
        }
        assert_eq!(known.seen.len(), 1);
    }

    #[test]
    fn strings_decode_in_both_styles() {
        let mut enc = Vec::new();
        enc.extend(firn_store::types::U256::from(32u64).to_be_bytes::<32>());
        enc.extend(firn_store::types::U256::from(4u64).to_be_bytes::<32>());
        let mut tail = b"FIRN".to_vec();
        tail.resize(32, 0);
        enc.extend(tail);
        assert_eq!(abi_string(&enc).as_deref(), Some("FIRN"));
        let mut b32 = b"MKR".to_vec();
        b32.resize(32, 0);
        assert_eq!(abi_string(&b32).as_deref(), Some("MKR"));
        // A length past the end.
        enc[63] = 200;
        assert_eq!(abi_string(&enc), None);
    }
}
