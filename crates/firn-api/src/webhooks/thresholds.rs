//! Balance-threshold sub-events: `balance_threshold` (a watched P-Chain address's balance of
//! one kind fell below `balanceThresholdFilter.balanceThreshold`) and
//! `l1_validator_balance_threshold` (an L1 validator of the watched node or subnet has less
//! fee balance left than `l1ValidatorFeeBalanceThreshold`).
//!
//! Both fire once per crossing. The matcher keeps the keys now below their threshold (the
//! webhook's match state) and writes them with its cursor, so a key fires again only
//! after its balance got back to the threshold and fell once more, and a restart neither
//! repeats nor loses a crossing.
//!
//! An address's balance is judged after the last of its transactions in each second (the
//! store's balances are by time), so two moves in one block that dip below and come back
//! fire nothing. Atomic memory (what the X- and C-Chains exported to the address on the
//! P-Chain) also grows without a P-Chain transaction, so it is judged just before that second
//! too, silently: an export between two of the address's transactions is not missed. An L1
//! validator's balance runs down with time, not with its transactions: it
//! is judged whenever the matcher reaches the indexed P-Chain tip, at that height.

use std::collections::BTreeSet;

use firn_core::ids::Id;
use firn_store::rows::atomic::AtomicBalance;
use firn_store::rows::utxos::{BalanceKind, BalanceSum};
use serde::{Deserialize, Serialize};

/// `PrimaryNetworkBalanceThresholdFilter`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceThresholdFilter {
    /// One of [`BALANCE_TYPES`].
    pub balance_type: String,
    /// nAVAX, decimal.
    pub balance_threshold: String,
}

/// The `CommonBalanceType`s, each a [`Holding`].
pub const BALANCE_TYPES: [&str; 10] = [
    "unlockedUnstaked",
    "unlockedStaked",
    "lockedPlatform",
    "lockedStakeable",
    "lockedStaked",
    "pendingStaked",
    "unlocked",
    "locked",
    "atomicMemoryUnlocked",
    "atomicMemoryLocked",
];

/// What a `balanceType` adds up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holding {
    /// The address's P-Chain UTXOs of these kinds.
    Utxos(&'static [BalanceKind]),
    /// What other chains exported to the P-Chain for the address and it has not imported:
    /// still time-locked, or not.
    AtomicMemory { locked: bool },
}

impl Holding {
    fn of(balance_type: &str) -> Option<Self> {
        use BalanceKind::*;
        let kinds: &'static [BalanceKind] = match balance_type {
            "unlockedUnstaked" => &[UnlockedUnstaked],
            "unlockedStaked" => &[UnlockedStaked],
            "lockedPlatform" => &[LockedPlatform],
            "lockedStakeable" => &[LockedStakeable],
            "lockedStaked" => &[LockedStaked],
            "pendingStaked" => &[PendingStaked],
            "unlocked" => &[UnlockedUnstaked, UnlockedStaked],
            "locked" => &[LockedPlatform, LockedStakeable, LockedStaked],
            "atomicMemoryUnlocked" => return Some(Self::AtomicMemory { locked: false }),
            "atomicMemoryLocked" => return Some(Self::AtomicMemory { locked: true }),
            _ => return None,
        };
        Some(Self::Utxos(kinds))
    }
}

/// A parsed `balanceThresholdFilter`: AVAX of one holding, against a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AddressThreshold {
    pub holding: Holding,
    /// nAVAX.
    pub threshold: u64,
}

impl AddressThreshold {
    /// The filter's threshold, or what is wrong with it.
    pub(crate) fn parse(filter: &BalanceThresholdFilter) -> Result<Self, String> {
        let Some(holding) = Holding::of(&filter.balance_type) else {
            let name: String = filter.balance_type.chars().take(40).collect();
            return Err(format!(
                "balanceThresholdFilter.balanceType {name:?} is not one of {}",
                BALANCE_TYPES.join(", ")
            ));
        };
        let threshold = parse_navax(&filter.balance_threshold)
            .map_err(|e| format!("balanceThresholdFilter.balanceThreshold {e}"))?;
        Ok(Self { holding, threshold })
    }

    /// The AVAX (`avax`) of a [`Holding::Utxos`] in `sums` (0 for atomic memory).
    pub(crate) fn balance(&self, sums: &[BalanceSum], avax: Id) -> u128 {
        let Holding::Utxos(kinds) = self.holding else {
            return 0;
        };
        sums.iter()
            .filter(|s| s.asset_id == avax && kinds.contains(&s.kind))
            .map(|s| s.amount)
            .sum()
    }

    /// The AVAX (`avax`) of a [`Holding::AtomicMemory`] in `held`, from every exporting chain
    /// (0 for UTXO kinds).
    pub(crate) fn balance_in_memory(&self, held: &[AtomicBalance], avax: Id) -> u128 {
        let Holding::AtomicMemory { locked } = self.holding else {
            return 0;
        };
        held.iter()
            .filter(|b| b.asset_id == avax && b.locked == locked)
            .map(|b| b.amount)
            .sum()
    }
}

/// A threshold in nAVAX: a decimal that fits in 64 bits.
pub(crate) fn parse_navax(text: &str) -> Result<u64, String> {
    let shown: String = text.chars().take(40).collect();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{shown:?} is not a decimal amount of nAVAX"));
    }
    text.parse()
        .map_err(|_| format!("{shown:?} is more nAVAX than exist"))
}

/// The keys a webhook's thresholds now see below, as its match state stores them (a JSON
/// array of addresses and `l1:`-prefixed validation IDs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Below(BTreeSet<String>);

impl Below {
    /// The stored state; nothing (or anything unreadable) is an empty set.
    pub(crate) fn parse(state: Option<&str>) -> Self {
        Self(
            state
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_default(),
        )
    }

    /// The state to store.
    pub(crate) fn to_state(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "[]".to_owned())
    }

    /// Records `key`'s balance against its threshold: `true` when it just crossed below.
    pub(crate) fn judge(&mut self, key: &str, balance: u128, threshold: u64) -> bool {
        if balance < u128::from(threshold) {
            self.0.insert(key.to_owned())
        } else {
            self.0.remove(key);
            false
        }
    }

    /// Forgets the L1 validators not in `live` (they stopped being watched or active).
    pub(crate) fn keep_l1(&mut self, live: &BTreeSet<String>) {
        self.0
            .retain(|k| !k.starts_with(L1_PREFIX) || live.contains(k));
    }
}

/// What marks an L1 validator's key in [`Below`].
pub(crate) const L1_PREFIX: &str = "l1:";

/// The numbers of a threshold event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThresholdCrossing {
    /// The balance type watched (address thresholds only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance_type: Option<String>,
    /// The threshold, nAVAX.
    pub balance_threshold: String,
    /// The balance now, nAVAX.
    pub balance: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(kind: BalanceKind, amount: u128, asset: Id) -> BalanceSum {
        BalanceSum {
            asset_id: asset,
            kind,
            amount,
            utxo_count: 1,
        }
    }

    #[test]
    fn a_balance_type_adds_its_kinds_of_avax_only() {
        let avax = Id([1; 32]);
        let sums = [
            sum(BalanceKind::UnlockedUnstaked, 5, avax),
            sum(BalanceKind::UnlockedStaked, 7, avax),
            sum(BalanceKind::LockedStaked, 100, avax),
            sum(BalanceKind::UnlockedUnstaked, 1_000, Id([2; 32])),
        ];
        let filter = |t: &str| {
            AddressThreshold::parse(&BalanceThresholdFilter {
                balance_type: t.to_owned(),
                balance_threshold: "10".to_owned(),
            })
        };
        assert_eq!(filter("unlockedUnstaked").unwrap().balance(&sums, avax), 5);
        assert_eq!(filter("unlocked").unwrap().balance(&sums, avax), 12);
        assert_eq!(filter("locked").unwrap().balance(&sums, avax), 100);
        assert_eq!(filter("pendingStaked").unwrap().balance(&sums, avax), 0);
        assert_eq!(
            filter("atomicMemoryLocked").unwrap().balance(&sums, avax),
            0
        );
        let held = |source: u8, locked: bool, amount: u128, asset: Id| AtomicBalance {
            source_chain: Id([source; 32]),
            asset_id: asset,
            locked,
            amount,
            utxo_count: 1,
        };
        let memory = [
            held(1, false, 3, avax),
            held(2, false, 4, avax),
            held(1, true, 50, avax),
            held(1, false, 900, Id([2; 32])),
        ];
        let unlocked = filter("atomicMemoryUnlocked").unwrap();
        assert_eq!(unlocked.balance_in_memory(&memory, avax), 7);
        assert_eq!(unlocked.balance(&sums, avax), 0);
        let locked = filter("atomicMemoryLocked").unwrap();
        assert_eq!(locked.balance_in_memory(&memory, avax), 50);
        assert_eq!(
            filter("locked").unwrap().balance_in_memory(&memory, avax),
            0
        );
        assert!(filter("everything").unwrap_err().contains("not one of"));
    }

    #[test]
    fn thresholds_are_decimal_nanoavax() {
        assert_eq!(parse_navax("0"), Ok(0));
        assert_eq!(parse_navax("18446744073709551615"), Ok(u64::MAX));
        for bad in ["", "-1", "1.5", "0x10", " 1", "18446744073709551616"] {
            assert!(parse_navax(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_key_fires_once_per_crossing() {
        let mut below = Below::default();
        assert!(!below.judge("a", 10, 10), "at the threshold is not below");
        assert!(below.judge("a", 9, 10), "crossed");
        assert!(!below.judge("a", 1, 10), "still below: no second event");
        let stored = Below::parse(Some(&below.to_state()));
        assert_eq!(stored, below, "the state survives a restart");
        below = stored;
        assert!(!below.judge("a", 11, 10), "back above");
        assert!(below.judge("a", 0, 10), "crossed again");
        assert_eq!(Below::parse(Some("not json")), Below::default());
        below.judge("l1:x", 0, 10);
        below.judge("l1:y", 0, 10);
        below.keep_l1(&["l1:y".to_owned()].into_iter().collect());
        assert_eq!(below.to_state(), r#"["a","l1:y"]"#);
    }
}
