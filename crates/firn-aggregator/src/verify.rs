//! Checking many signatures of one message at the cost of about one pairing and one
//! subgroup check.
//!
//! Every validator signs the same bytes, so the sum of their signatures must verify against
//! the sum of their keys (one pairing check; the keys carry proofs of possession, which is
//! what makes summing them safe). When a batch fails it is split in halves and each half is
//! checked again, down to single signatures: `k` bad signatures among `n` cost about
//! `2k·log2(n)` pairings, and every bad one is found and excluded.
//!
//! Colluding signers could send two invalid signatures whose errors cancel; their sum is
//! still exactly the aggregate their keys would produce, so the message that comes out
//! verifies either way.

use firn_core::keys::bls;

/// One signature to check: its canonical index, its signer's key and the signature.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Canonical index of the signer.
    pub index: usize,
    /// The signer's key.
    pub public_key: bls::PublicKey,
    /// The signature it returned, decoded but not yet checked (see
    /// [`bls::aggregate_unchecked`]: the subgroup is checked once per batch, on the sum).
    pub signature: bls::UncheckedSignature,
}

/// Splits `batch` into the candidates whose signatures of `msg` verify and the indices of
/// those that do not.
pub fn split_valid(msg: &[u8], batch: Vec<Candidate>) -> (Vec<Candidate>, Vec<usize>) {
    let mut good = Vec::with_capacity(batch.len());
    let mut bad = Vec::new();
    check(msg, batch, &mut good, &mut bad);
    (good, bad)
}

fn check(msg: &[u8], batch: Vec<Candidate>, good: &mut Vec<Candidate>, bad: &mut Vec<usize>) {
    if batch.is_empty() {
        return;
    }
    if batch_verifies(msg, &batch) {
        good.extend(batch);
        return;
    }
    if batch.len() == 1 {
        bad.extend(batch.iter().map(|c| c.index));
        return;
    }
    let mut left = batch;
    let right = left.split_off(left.len() / 2);
    check(msg, left, good, bad);
    check(msg, right, good, bad);
}

fn batch_verifies(msg: &[u8], batch: &[Candidate]) -> bool {
    let sigs: Vec<&bls::UncheckedSignature> = batch.iter().map(|c| &c.signature).collect();
    let keys: Vec<&bls::PublicKey> = batch.iter().map(|c| &c.public_key).collect();
    match bls::aggregate_unchecked(&sigs) {
        Ok(sum) => bls::fast_aggregate_verify(&keys, msg, &sum),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(n: usize, msg: &[u8], bad: &[usize]) -> Vec<Candidate> {
        (0..n)
            .map(|i| {
                let sk = bls::SecretKey::from_seed(&[i as u8 + 1; 32]).unwrap();
                let signed: &[u8] = if bad.contains(&i) { b"other" } else { msg };
                Candidate {
                    index: i,
                    public_key: sk.public_key(),
                    signature: sk.sign(signed).into(),
                }
            })
            .collect()
    }

    #[test]
    fn every_bad_signature_is_found_and_the_rest_kept() {
        let msg = b"warp";
        for bad in [vec![], vec![0], vec![6], vec![1, 2, 5], (0..7).collect()] {
            let (good, found) = split_valid(msg, candidates(7, msg, &bad));
            let mut found = found;
            found.sort_unstable();
            assert_eq!(found, bad);
            let mut kept: Vec<usize> = good.iter().map(|c| c.index).collect();
            kept.sort_unstable();
            let want: Vec<usize> = (0..7).filter(|i| !bad.contains(i)).collect();
            assert_eq!(kept, want);
        }
    }
}
