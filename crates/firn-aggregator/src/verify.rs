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

/// The outcome of checking a batch.
#[derive(Debug)]
pub struct Checked {
    /// The candidates whose signatures verify.
    pub good: Vec<Candidate>,
    /// The canonical indices of those that do not.
    pub bad: Vec<usize>,
    /// The sum of the good signatures, checked (the verified batches' sums added up, so
    /// the signed message needs no second pass); `None` when none is good.
    pub sum: Option<bls::Signature>,
}

/// Splits `batch` into the candidates whose signatures of `msg` verify and the indices of
/// those that do not.
pub fn split_valid(msg: &[u8], batch: Vec<Candidate>) -> Checked {
    let mut out = Checked {
        good: Vec::with_capacity(batch.len()),
        bad: Vec::new(),
        sum: None,
    };
    check(msg, batch, &mut out);
    out
}

fn check(msg: &[u8], batch: Vec<Candidate>, out: &mut Checked) {
    if batch.is_empty() {
        return;
    }
    if let Some(sum) = batch_sum_if_valid(msg, &batch) {
        out.good.extend(batch);
        out.sum = Some(add(out.sum.take(), sum));
        return;
    }
    if batch.len() == 1 {
        out.bad.extend(batch.iter().map(|c| c.index));
        return;
    }
    let mut left = batch;
    let right = left.split_off(left.len() / 2);
    check(msg, left, out);
    check(msg, right, out);
}

/// The checked sum of the batch's signatures if it verifies against the sum of its keys.
fn batch_sum_if_valid(msg: &[u8], batch: &[Candidate]) -> Option<bls::Signature> {
    let sigs: Vec<&bls::UncheckedSignature> = batch.iter().map(|c| &c.signature).collect();
    let keys: Vec<&bls::PublicKey> = batch.iter().map(|c| &c.public_key).collect();
    let sum = bls::aggregate_unchecked(&sigs).ok()?;
    bls::fast_aggregate_verify(&keys, msg, &sum).then_some(sum)
}

/// `sum + more`.
pub fn add(sum: Option<bls::Signature>, more: bls::Signature) -> bls::Signature {
    match sum {
        None => more,
        Some(sum) => sum.plus(&more),
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
            let batch = candidates(7, msg, &bad);
            let checked = split_valid(msg, batch.clone());
            let mut found = checked.bad;
            found.sort_unstable();
            assert_eq!(found, bad);
            let mut kept: Vec<usize> = checked.good.iter().map(|c| c.index).collect();
            kept.sort_unstable();
            let want: Vec<usize> = (0..7).filter(|i| !bad.contains(i)).collect();
            assert_eq!(kept, want);
            // The sum is exactly the good signatures', and verifies against their keys.
            let good_sigs: Vec<&bls::UncheckedSignature> =
                checked.good.iter().map(|c| &c.signature).collect();
            let keys: Vec<&bls::PublicKey> = checked.good.iter().map(|c| &c.public_key).collect();
            match checked.sum {
                None => assert!(want.is_empty()),
                Some(sum) => {
                    assert_eq!(
                        Some(&sum),
                        bls::aggregate_unchecked(&good_sigs).ok().as_ref()
                    );
                    assert!(bls::fast_aggregate_verify(&keys, msg, &sum));
                }
            }
        }
    }
}
