//! Spending: the flow check and credential verification of AvalancheGo's
//! `utxo.VerifySpendUTXOs` and `secp256k1fx.Fx`, and consuming / producing UTXOs.

use super::syntax::{owner_id, verify_sig_indices};
use crate::error::{FxError, TxError};
use crate::state::{State, Utxo};
use firn_core::avax::secp256k1fx::SignatureBytes;
use firn_core::ids::Id;
use firn_core::keys::secp256k1::{KeyError, PublicKey, RecoverableSignature, recover};
use firn_core::pchain::fx::{
    AuthInput, Credential, Input, OutputOwners, TransferableInput, TransferableOutput,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

/// Most entries in the recovery cache before it is emptied.
const RECOVER_CACHE_SIZE: usize = 8192;

type RecoverKey = ([u8; 32], [u8; 65]);

/// Recovers the signer's public key, remembering recent results: a tx's signatures are checked
/// when it is issued and again when its block is built (AvalancheGo's fx keeps the same
/// cache). Recovery is a pure function of its inputs, so sharing the cache is safe.
pub(crate) fn recover_signer(hash: &[u8; 32], sig: &[u8; 65]) -> Result<PublicKey, KeyError> {
    static CACHE: OnceLock<Mutex<HashMap<RecoverKey, PublicKey>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (*hash, *sig);
    if let Some(k) = cache.lock().ok().and_then(|c| c.get(&key).copied()) {
        return Ok(k);
    }
    let signer = recover(hash, &RecoverableSignature(*sig))?;
    if let Ok(mut c) = cache.lock() {
        if c.len() >= RECOVER_CACHE_SIZE {
            c.clear();
        }
        c.insert(key, signer);
    }
    Ok(signer)
}

/// Checks that `signatures` (one per index in `indices`) are `owners`' signatures over `hash`
/// (`secp256k1fx.Fx.VerifyCredentials`); every chain's credentials carry such a list.
pub fn verify_credentials(
    hash: &[u8; 32],
    indices: &[u32],
    signatures: &[SignatureBytes],
    owners: &OutputOwners,
    now: u64,
) -> Result<(), FxError> {
    let n = indices.len();
    if owners.locktime > now {
        return Err(FxError::Timelocked);
    }
    if (owners.threshold as usize) < n {
        return Err(FxError::TooManySigners);
    }
    if (owners.threshold as usize) > n {
        return Err(FxError::TooFewSigners);
    }
    if n != signatures.len() {
        return Err(FxError::SignersMismatch);
    }
    for (index, sig) in indices.iter().zip(signatures) {
        let expected = owners
            .addresses
            .get(*index as usize)
            .ok_or(FxError::IndexOutOfBounds)?;
        let actual = recover_signer(hash, sig)
            .map_err(|e| FxError::BadSignature(e.to_string()))?
            .short_id();
        if actual != *expected {
            return Err(FxError::WrongSig {
                expected: expected.to_string(),
                actual: actual.to_string(),
            });
        }
    }
    Ok(())
}

/// Checks an authorisation (subnet auth, disable auth): the last credential signs for `owners`.
/// Returns how many credentials remain for the inputs.
pub fn verify_auth(
    hash: &[u8; 32],
    auth: &AuthInput,
    creds: &[Credential],
    owners: &OutputOwners,
    now: u64,
) -> Result<usize, TxError> {
    let Some((last, rest)) = creds.split_last() else {
        return Err(TxError::MissingAuthCredential);
    };
    verify_sig_indices(&auth.sig_indices).map_err(TxError::Unauthorized)?;
    verify_credentials(hash, &auth.sig_indices, &last.signatures, owners, now)
        .map_err(TxError::Unauthorized)?;
    Ok(rest.len())
}

/// What a tx consumes and produces, for the flow check.
#[derive(Debug)]
pub struct Spend<'a> {
    /// The hash credentials sign.
    pub hash: [u8; 32],
    /// The inputs.
    pub inputs: &'a [TransferableInput],
    /// Outputs and stake outputs.
    pub outputs: Vec<&'a TransferableOutput>,
    /// The credentials for the inputs.
    pub creds: &'a [Credential],
    /// Unlocked AVAX the tx burns or moves elsewhere (fee, L1 balances).
    pub burned: u64,
}

/// AvalancheGo's flow check: every input spends an existing UTXO with valid credentials, and
/// inputs cover outputs plus `burned` per asset, locked amounts per (locktime, owner).
pub fn verify_spend(state: &State, avax: Id, spend: &Spend<'_>, now: u64) -> Result<(), TxError> {
    verify_spend_of(|id| state.utxo(id), avax, spend, now)
}

/// [`verify_spend`] over UTXOs found by `lookup` (the state's, or imported ones too).
pub fn verify_spend_of<'s>(
    lookup: impl Fn(&Id) -> Option<&'s Utxo>,
    avax: Id,
    spend: &Spend<'_>,
    now: u64,
) -> Result<(), TxError> {
    if spend.inputs.len() != spend.creds.len() {
        return Err(TxError::WrongNumberOfCredentials {
            inputs: spend.inputs.len(),
            credentials: spend.creds.len(),
        });
    }
    let mut unlocked_consumed: HashMap<Id, u64> = HashMap::new();
    let mut locked_consumed: HashMap<(Id, u64, Id), u64> = HashMap::new();
    for (input, cred) in spend.inputs.iter().zip(spend.creds) {
        let utxo = lookup(&input.utxo_id()).ok_or(TxError::MissingUtxo {
            tx_id: input.tx_id,
            output_index: input.output_index,
        })?;
        if utxo.asset_id != input.asset_id {
            return Err(TxError::AssetMismatch {
                claimed: input.asset_id,
                actual: utxo.asset_id,
            });
        }
        let locktime = utxo.output.stakeable_locktime();
        match &input.input {
            Input::Locked(l) if l.locktime != locktime => {
                return Err(TxError::LocktimeMismatch {
                    input: l.locktime,
                    utxo: locktime,
                });
            }
            Input::Transfer(_) if now < locktime => {
                return Err(TxError::LockedFundsNotMarkedAsLocked);
            }
            _ => {}
        }
        let inner = input.input.transfer();
        let out = utxo.output.transfer();
        if out.amount != inner.amount {
            return Err(TxError::Transfer(FxError::MismatchedAmounts {
                utxo: out.amount,
                input: inner.amount,
            }));
        }
        verify_credentials(
            &spend.hash,
            &inner.sig_indices,
            &cred.signatures,
            &out.owners,
            now,
        )
        .map_err(TxError::Transfer)?;
        if now >= locktime {
            let e = unlocked_consumed.entry(utxo.asset_id).or_default();
            *e = e.checked_add(inner.amount).ok_or(TxError::Overflow)?;
        } else {
            let e = locked_consumed
                .entry((utxo.asset_id, locktime, owner_id(&out.owners)))
                .or_default();
            *e = e.checked_add(inner.amount).ok_or(TxError::Overflow)?;
        }
    }

    let mut unlocked_produced: BTreeMap<Id, u64> = BTreeMap::new();
    unlocked_produced.insert(avax, spend.burned);
    let mut locked_produced: BTreeMap<(Id, u64, Id), u64> = BTreeMap::new();
    for out in &spend.outputs {
        let locktime = out.output.stakeable_locktime();
        let amount = out.output.amount();
        if locktime == 0 {
            let e = unlocked_produced.entry(out.asset_id).or_default();
            *e = e.checked_add(amount).ok_or(TxError::Overflow)?;
        } else {
            let e = locked_produced
                .entry((
                    out.asset_id,
                    locktime,
                    owner_id(&out.output.transfer().owners),
                ))
                .or_default();
            *e = e.checked_add(amount).ok_or(TxError::Overflow)?;
        }
    }
    for ((asset, locktime, owner), produced) in locked_produced {
        let consumed = locked_consumed
            .get(&(asset, locktime, owner))
            .copied()
            .unwrap_or(0);
        if produced > consumed {
            let increase = produced - consumed;
            let available = unlocked_consumed.get(&asset).copied().unwrap_or(0);
            if increase > available {
                return Err(TxError::InsufficientLockedFunds {
                    owner,
                    needed: increase - available,
                    asset,
                    locktime,
                });
            }
            unlocked_consumed.insert(asset, available - increase);
        }
    }
    for (asset, produced) in unlocked_produced {
        let consumed = unlocked_consumed.get(&asset).copied().unwrap_or(0);
        if produced > consumed {
            return Err(TxError::InsufficientUnlockedFunds {
                needed: produced - consumed,
                asset,
            });
        }
    }
    Ok(())
}

/// Removes the UTXOs the inputs spend.
pub fn consume(state: &mut State, inputs: &[TransferableInput]) {
    for i in inputs {
        state.remove_utxo(&i.utxo_id());
    }
}

/// Adds the outputs of tx `tx_id` as UTXOs, indexed from 0.
pub fn produce(state: &mut State, tx_id: Id, outputs: &[TransferableOutput]) {
    for (i, o) in outputs.iter().enumerate() {
        state.add_utxo(Utxo {
            tx_id,
            output_index: i as u32,
            asset_id: o.asset_id,
            output: o.output.clone(),
        });
    }
}
