//! The secp256k1fx and stakeable-lock types that P-Chain txs carry: outputs, inputs, owners,
//! credentials, and the BLS signer of a permissionless validator.
//!
//! Types that travel behind a Go interface are enums here; their codec form is a u32 type
//! ID (see [`super::type_id`]) followed by the value. The secp256k1fx types all chains share
//! live in [`crate::avax::secp256k1fx`] and are re-exported here.

use super::type_id;
pub use crate::avax::secp256k1fx::{
    Credential, OutputOwners, SECP256K1FX_ID, SignatureBytes, TransferInput, TransferOutput,
};
use crate::codec::{CodecError, Decode, Encode, Reader, Writer};
use crate::codec_struct;

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
        r.expect_type_id(type_id::OUTPUT_OWNERS, "an owner")?;
        Ok(Self(OutputOwners::decode(r)?))
    }
}

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
    r.expect_type_id(
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
                r.expect_type_id(type_id::TRANSFER_INPUT, "the input inside a stakeable lock")?;
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

crate::typed_by_codec!(Output, Input);

/// An asset amount and who owns it (avax.TransferableOutput), with stakeable locks allowed.
pub type TransferableOutput = crate::avax::TransferableOutput<Output>;

/// A UTXO being spent (avax.TransferableInput), with stakeable locks allowed.
pub type TransferableInput = crate::avax::TransferableInput<Input>;

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
        r.expect_type_id(type_id::AUTH_INPUT, "an authorisation")?;
        Ok(Self {
            sig_indices: r.vec()?,
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
    fn outputs_sort_by_asset_then_output_bytes() {
        use crate::ids::Id;
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
