//! The secp256k1fx and stakeable-lock types that P-Chain txs carry: outputs, inputs, owners,
//! credentials, and the BLS signer of a permissionless validator.
//!
//! Types that travel behind a Go interface are enums here; their codec form is a u32 type
//! ID (see [`super::type_id`]) followed by the value.

use super::type_id;
use crate::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use crate::codec_struct;
use crate::ids::{Id, ShortId};
use std::cmp::Ordering;

/// The secp256k1fx ID (`spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ`), which
/// AvalancheGo shows as `fxID` on every output and input.
pub const SECP256K1FX_ID: Id = Id::from_padded_str("secp256k1fx");

fn expect_type(r: &mut Reader<'_>, want: u32, context: &'static str) -> Result<(), CodecError> {
    match r.u32()? {
        t if t == want => Ok(()),
        type_id => Err(CodecError::UnknownTypeId { type_id, context }),
    }
}

/// Who may spend: `threshold` of `addresses`, once `locktime` has passed (secp256k1fx.OutputOwners).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OutputOwners {
    pub locktime: u64,
    pub threshold: u32,
    pub addresses: Vec<ShortId>,
}
codec_struct!(OutputOwners { locktime: u64, threshold: u32, addresses: Vec<ShortId> });

/// An owner behind `fx.Owner`: always OutputOwners (type 11) on the P-Chain.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Owner(pub OutputOwners);

impl Encode for Owner {
    fn encode(&self, w: &mut Writer) {
        w.u32(type_id::OUTPUT_OWNERS);
        self.0.encode(w);
    }
}

impl Decode for Owner {
    const MIN_SIZE: usize = 4 + OutputOwners::MIN_SIZE;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        expect_type(r, type_id::OUTPUT_OWNERS, "an owner")?;
        Ok(Self(OutputOwners::decode(r)?))
    }
}

/// An amount owned by [`OutputOwners`] (secp256k1fx.TransferOutput).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TransferOutput {
    pub amount: u64,
    pub owners: OutputOwners,
}
codec_struct!(TransferOutput {
    amount: u64,
    owners: OutputOwners
});

/// An output that can be staked but not spent until `locktime` (stakeable.LockOut).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockedOutput {
    pub locktime: u64,
    pub output: TransferOutput,
}

/// An output behind `TransferableOut`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Output {
    /// secp256k1fx.TransferOutput (type 7).
    Transfer(TransferOutput),
    /// stakeable.LockOut (type 22) wrapping a TransferOutput.
    Locked(LockedOutput),
}

impl Output {
    /// The amount of the output.
    pub fn amount(&self) -> u64 {
        self.transfer().amount
    }

    /// The inner transfer output.
    pub fn transfer(&self) -> &TransferOutput {
        match self {
            Output::Transfer(t) => t,
            Output::Locked(l) => &l.output,
        }
    }

    /// The stakeable locktime, zero for plain outputs.
    pub fn stakeable_locktime(&self) -> u64 {
        match self {
            Output::Transfer(_) => 0,
            Output::Locked(l) => l.locktime,
        }
    }
}

fn decode_transfer_output(r: &mut Reader<'_>) -> Result<TransferOutput, CodecError> {
    expect_type(
        r,
        type_id::TRANSFER_OUTPUT,
        "the output inside a stakeable lock",
    )?;
    TransferOutput::decode(r)
}

impl Encode for Output {
    fn encode(&self, w: &mut Writer) {
        match self {
            Output::Transfer(t) => {
                w.u32(type_id::TRANSFER_OUTPUT);
                t.encode(w);
            }
            Output::Locked(l) => {
                w.u32(type_id::STAKEABLE_LOCK_OUT);
                w.u64(l.locktime);
                w.u32(type_id::TRANSFER_OUTPUT);
                l.output.encode(w);
            }
        }
    }
}

impl Decode for Output {
    const MIN_SIZE: usize = 4 + TransferOutput::MIN_SIZE;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        match r.u32()? {
            type_id::TRANSFER_OUTPUT => Ok(Output::Transfer(TransferOutput::decode(r)?)),
            type_id::STAKEABLE_LOCK_OUT => {
                let locktime = r.u64()?;
                Ok(Output::Locked(LockedOutput {
                    locktime,
                    output: decode_transfer_output(r)?,
                }))
            }
            type_id => Err(CodecError::UnknownTypeId {
                type_id,
                context: "an output",
            }),
        }
    }
}

/// Spends an amount with the signatures at `sig_indices` (secp256k1fx.TransferInput).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TransferInput {
    pub amount: u64,
    pub sig_indices: Vec<u32>,
}
codec_struct!(TransferInput { amount: u64, sig_indices: Vec<u32> });

/// An input spending a stakeable-locked output (stakeable.LockIn).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockedInput {
    pub locktime: u64,
    pub input: TransferInput,
}

/// An input behind `TransferableIn`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Input {
    /// secp256k1fx.TransferInput (type 5).
    Transfer(TransferInput),
    /// stakeable.LockIn (type 21) wrapping a TransferInput.
    Locked(LockedInput),
}

impl Input {
    /// The amount consumed.
    pub fn amount(&self) -> u64 {
        self.transfer().amount
    }

    /// The inner transfer input.
    pub fn transfer(&self) -> &TransferInput {
        match self {
            Input::Transfer(t) => t,
            Input::Locked(l) => &l.input,
        }
    }
}

impl Encode for Input {
    fn encode(&self, w: &mut Writer) {
        match self {
            Input::Transfer(t) => {
                w.u32(type_id::TRANSFER_INPUT);
                t.encode(w);
            }
            Input::Locked(l) => {
                w.u32(type_id::STAKEABLE_LOCK_IN);
                w.u64(l.locktime);
                w.u32(type_id::TRANSFER_INPUT);
                l.input.encode(w);
            }
        }
    }
}

impl Decode for Input {
    const MIN_SIZE: usize = 4 + TransferInput::MIN_SIZE;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        match r.u32()? {
            type_id::TRANSFER_INPUT => Ok(Input::Transfer(TransferInput::decode(r)?)),
            type_id::STAKEABLE_LOCK_IN => {
                let locktime = r.u64()?;
                expect_type(
                    r,
                    type_id::TRANSFER_INPUT,
                    "the input inside a stakeable lock",
                )?;
                Ok(Input::Locked(LockedInput {
                    locktime,
                    input: TransferInput::decode(r)?,
                }))
            }
            type_id => Err(CodecError::UnknownTypeId {
                type_id,
                context: "an input",
            }),
        }
    }
}

/// An asset amount and who owns it (avax.TransferableOutput).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransferableOutput {
    pub asset_id: Id,
    pub output: Output,
}
codec_struct!(TransferableOutput {
    asset_id: Id,
    output: Output
});

impl TransferableOutput {
    /// AvalancheGo's canonical order of outputs (`avax.SortTransferableOutputs`): by asset,
    /// then by the output's codec bytes. A tx's outputs must be in this order.
    pub fn canonical_cmp(&self, other: &Self) -> Ordering {
        self.asset_id
            .cmp(&other.asset_id)
            .then_with(|| codec::to_bytes(&self.output).cmp(&codec::to_bytes(&other.output)))
    }

    /// Sorts `outputs` into the canonical order ([`Self::canonical_cmp`]).
    pub fn sort_canonical(outputs: &mut [Self]) {
        outputs.sort_by(Self::canonical_cmp);
    }
}

/// A UTXO being spent (avax.TransferableInput): which output of which tx, and how.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransferableInput {
    pub tx_id: Id,
    pub output_index: u32,
    pub asset_id: Id,
    pub input: Input,
}
codec_struct!(TransferableInput {
    tx_id: Id,
    output_index: u32,
    asset_id: Id,
    input: Input
});

impl TransferableInput {
    /// The spent UTXO's ID: `tx_id.prefix(output_index)`.
    pub fn utxo_id(&self) -> Id {
        self.tx_id.prefix(u64::from(self.output_index))
    }
}

/// Authorisation by signature indices (secp256k1fx.Input, type 10): subnet and disable auth.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AuthInput {
    pub sig_indices: Vec<u32>,
}

impl Encode for AuthInput {
    fn encode(&self, w: &mut Writer) {
        w.u32(type_id::AUTH_INPUT);
        w.vec(&self.sig_indices);
    }
}

impl Decode for AuthInput {
    const MIN_SIZE: usize = 8;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        expect_type(r, type_id::AUTH_INPUT, "an authorisation")?;
        Ok(Self {
            sig_indices: r.vec()?,
        })
    }
}

/// A 65-byte recoverable secp256k1 signature `r ‖ s ‖ v`.
pub type SignatureBytes = [u8; 65];

/// Signatures for one input or authorisation (secp256k1fx.Credential, type 9).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Credential {
    pub signatures: Vec<SignatureBytes>,
}

impl Encode for Credential {
    fn encode(&self, w: &mut Writer) {
        w.u32(type_id::CREDENTIAL);
        w.vec(&self.signatures);
    }
}

impl Decode for Credential {
    const MIN_SIZE: usize = 8;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        expect_type(r, type_id::CREDENTIAL, "a credential")?;
        Ok(Self {
            signatures: r.vec()?,
        })
    }
}

/// A BLS public key and its proof of possession, as raw bytes (checked by the VM, not the codec).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProofOfPossession {
    pub public_key: [u8; 48],
    pub proof_of_possession: [u8; 96],
}
impl ProofOfPossession {
    /// The public key of `key` and its proof of possession.
    pub fn new(key: &crate::keys::bls::SecretKey) -> Self {
        Self {
            public_key: key.public_key().to_bytes(),
            proof_of_possession: key.sign_proof_of_possession().to_bytes(),
        }
    }
}

codec_struct!(ProofOfPossession {
    public_key: [u8; 48],
    proof_of_possession: [u8; 96]
});

/// The signer of a permissionless validator: none (type 27) or a BLS key (type 28).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Signer {
    Empty,
    /// Boxed: it is 144 bytes, and would otherwise size every unsigned tx.
    ProofOfPossession(Box<ProofOfPossession>),
}

impl Encode for Signer {
    fn encode(&self, w: &mut Writer) {
        match self {
            Signer::Empty => w.u32(type_id::SIGNER_EMPTY),
            Signer::ProofOfPossession(p) => {
                w.u32(type_id::SIGNER_POP);
                p.encode(w);
            }
        }
    }
}

impl Decode for Signer {
    const MIN_SIZE: usize = 4;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        match r.u32()? {
            type_id::SIGNER_EMPTY => Ok(Signer::Empty),
            type_id::SIGNER_POP => Ok(Signer::ProofOfPossession(Box::new(
                ProofOfPossession::decode(r)?,
            ))),
            type_id => Err(CodecError::UnknownTypeId {
                type_id,
                context: "a signer",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secp256k1fx_id_prints_as_avalanchego_does() {
        assert_eq!(
            SECP256K1FX_ID.to_string(),
            "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ"
        );
    }

    #[test]
    fn outputs_sort_by_asset_then_output_bytes() {
        let out = |asset: u8, amount: u64| TransferableOutput {
            asset_id: Id([asset; 32]),
            output: Output::Transfer(TransferOutput {
                amount,
                owners: OutputOwners::default(),
            }),
        };
        let mut outs = vec![out(2, 1), out(1, 9), out(1, 3)];
        TransferableOutput::sort_canonical(&mut outs);
        assert_eq!(outs, vec![out(1, 3), out(1, 9), out(2, 1)]);
    }

    #[test]
    fn nested_stakeable_locks_are_rejected() {
        let out = Output::Locked(LockedOutput {
            locktime: 1,
            output: TransferOutput::default(),
        });
        let mut w = Writer::new();
        out.encode(&mut w);
        let mut bytes = w.into_bytes();
        // Make the inner type ID a LockOut again.
        bytes[12..16].copy_from_slice(&type_id::STAKEABLE_LOCK_OUT.to_be_bytes());
        assert!(matches!(
            Output::decode(&mut Reader::new(&bytes)),
            Err(CodecError::UnknownTypeId { type_id: 22, .. })
        ));
    }
}
