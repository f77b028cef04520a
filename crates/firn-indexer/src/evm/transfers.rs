//! Token transfers decoded from logs: ERC-20 and ERC-721 `Transfer` (told apart by their
//! topic count: ERC-721 indexes the token ID), ERC-1155 `TransferSingle` and `TransferBatch`.

use std::sync::LazyLock;

use firn_core::evm::{event_topic, events};
use firn_store::rows::evm::{EvmLog, TokenStandard, TokenTransfer};
use firn_store::types::{Address, B256, U256};

static TRANSFER: LazyLock<B256> = LazyLock::new(|| B256::new(event_topic(events::TRANSFER)));
static TRANSFER_SINGLE: LazyLock<B256> =
    LazyLock::new(|| B256::new(event_topic(events::TRANSFER_SINGLE)));
static TRANSFER_BATCH: LazyLock<B256> =
    LazyLock::new(|| B256::new(event_topic(events::TRANSFER_BATCH)));

/// The transfers `log` records; none when it is not a well-formed transfer event.
pub fn decode(log: &EvmLog) -> Vec<TokenTransfer> {
    let Some(topic0) = log.topics.first() else {
        return Vec::new();
    };
    let make = |standard, from, to, token_id, value, batch_index| TokenTransfer {
        tx_index: log.tx_index,
        log_index: log.log_index,
        batch_index,
        token: log.address,
        standard,
        from,
        to,
        token_id,
        value,
    };
    if *topic0 == *TRANSFER {
        let from = topic_address(&log.topics, 1);
        let to = topic_address(&log.topics, 2);
        return match (log.topics.len(), from, to) {
            (3, Some(from), Some(to)) => word(&log.data, 0)
                .filter(|_| log.data.len() == 32)
                .map(|v| make(TokenStandard::Erc20, from, to, None, v, 0))
                .into_iter()
                .collect(),
            (4, Some(from), Some(to)) if log.data.is_empty() => {
                let id = U256::from_be_bytes(log.topics[3].0);
                vec![make(
                    TokenStandard::Erc721,
                    from,
                    to,
                    Some(id),
                    U256::ONE,
                    0,
                )]
            }
            _ => Vec::new(),
        };
    }
    let single = *topic0 == *TRANSFER_SINGLE;
    if !single && *topic0 != *TRANSFER_BATCH {
        return Vec::new();
    }
    let (Some(from), Some(to), 4) = (
        topic_address(&log.topics, 2),
        topic_address(&log.topics, 3),
        log.topics.len(),
    ) else {
        return Vec::new();
    };
    if single {
        return match (word(&log.data, 0), word(&log.data, 1)) {
            (Some(id), Some(v)) if log.data.len() == 64 => {
                vec![make(TokenStandard::Erc1155, from, to, Some(id), v, 0)]
            }
            _ => Vec::new(),
        };
    }
    let (Some(ids), Some(values)) = (uint_array(&log.data, 0), uint_array(&log.data, 1)) else {
        return Vec::new();
    };
    if ids.len() != values.len() {
        return Vec::new();
    }
    ids.into_iter()
        .zip(values)
        .enumerate()
        .filter_map(|(i, (id, v))| {
            let i = u32::try_from(i).ok()?;
            Some(make(TokenStandard::Erc1155, from, to, Some(id), v, i))
        })
        .collect()
}

/// The address in the low 20 bytes of topic `i`, when its high 12 bytes are zero.
fn topic_address(topics: &[B256], i: usize) -> Option<Address> {
    let t = topics.get(i)?;
    t.0[..12]
        .iter()
        .all(|b| *b == 0)
        .then(|| Address::from_word(*t))
}

/// ABI word `i` of `data` as a uint256.
pub(crate) fn word(data: &[u8], i: usize) -> Option<U256> {
    let start = i.checked_mul(32)?;
    let bytes: [u8; 32] = data.get(start..start.checked_add(32)?)?.try_into().ok()?;
    Some(U256::from_be_bytes::<32>(bytes))
}

/// A small ABI word (an offset or a length) as a `usize`.
pub(crate) fn small_word(data: &[u8], i: usize) -> Option<usize> {
    let w = word(data, i)?;
    let v = usize::try_from(w).ok()?;
    // Anything longer than the data is malformed.
    (v <= data.len()).then_some(v)
}

/// The dynamic `uint256[]` whose offset is head word `i`.
fn uint_array(data: &[u8], i: usize) -> Option<Vec<U256>> {
    let offset = small_word(data, i)?;
    if offset % 32 != 0 {
        return None;
    }
    let at = offset / 32;
    let len = small_word(data, at)?;
    (0..len).map(|k| word(data, at + 1 + k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr_topic(b: u8) -> B256 {
        let mut t = [0u8; 32];
        t[12..].fill(b);
        B256::new(t)
    }

    fn u(v: u64) -> [u8; 32] {
        U256::from(v).to_be_bytes::<32>()
    }

    fn log(topics: Vec<B256>, data: Vec<u8>) -> EvmLog {
        EvmLog {
            tx_index: 1,
            log_index: 7,
            address: Address::new([0xee; 20]),
            topics,
            data,
        }
    }

    #[test]
    fn erc20_and_erc721_are_told_apart_by_topic_count() {
        let t20 = decode(&log(
            vec![*TRANSFER, addr_topic(1), addr_topic(2)],
            u(500).to_vec(),
        ));
        assert_eq!(t20.len(), 1);
        assert_eq!(t20[0].standard, TokenStandard::Erc20);
        assert_eq!((t20[0].value, t20[0].token_id), (U256::from(500u64), None));
        assert_eq!(t20[0].to, Address::new([2; 20]));

        let t721 = decode(&log(
            vec![*TRANSFER, addr_topic(0), addr_topic(2), B256::new(u(9))],
            Vec::new(),
        ));
        assert_eq!(t721[0].standard, TokenStandard::Erc721);
        assert_eq!(t721[0].token_id, Some(U256::from(9u64)));
        assert_eq!(t721[0].from, Address::ZERO);
    }

    #[test]
    fn erc1155_batches_become_one_transfer_per_entry() {
        let mut data = Vec::new();
        for w in [64, 160, 2, 5, 6, 2, 10, 20] {
            data.extend(u(w));
        }
        let got = decode(&log(
            vec![*TRANSFER_BATCH, addr_topic(3), addr_topic(1), addr_topic(2)],
            data,
        ));
        let pairs: Vec<_> = got
            .iter()
            .map(|t| (t.batch_index, t.token_id, t.value))
            .collect();
        assert_eq!(
            pairs,
            vec![
                (0, Some(U256::from(5u64)), U256::from(10u64)),
                (1, Some(U256::from(6u64)), U256::from(20u64)),
            ]
        );
    }

    #[test]
    fn malformed_events_decode_to_nothing() {
        // Truncated data, a dirty address topic, a batch whose offset points past the end.
        assert!(
            decode(&log(
                vec![*TRANSFER, addr_topic(1), addr_topic(2)],
                vec![1; 5]
            ))
            .is_empty()
        );
        let mut dirty = addr_topic(1);
        dirty.0[0] = 1;
        assert!(decode(&log(vec![*TRANSFER, dirty, addr_topic(2)], u(1).to_vec())).is_empty());
        let mut data = u(4096).to_vec();
        data.extend(u(64));
        assert!(
            decode(&log(
                vec![*TRANSFER_BATCH, addr_topic(3), addr_topic(1), addr_topic(2)],
                data
            ))
            .is_empty()
        );
    }
}
