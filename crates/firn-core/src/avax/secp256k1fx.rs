//! The secp256k1fx types every chain shares (`vms/secp256k1fx`): owners, transfer outputs and
//! inputs, signature indices and credentials.
//!
//! Each chain's codec registers secp256k1fx right after five types of its own, so the type IDs
//! below are the same on the P-Chain, the X-Chain and in the C-Chain's atomic txs.

use super::Typed;
use crate::codec::{CodecError, Decode, Encode, Reader, Writer};
use crate::codec_struct;
use crate::ids::{Id, ShortId};

/// The secp256k1fx ID (`spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ`), which
/// AvalancheGo shows as `fxID` on every output and input.
pub const SECP256K1FX_ID: Id = Id::from_padded_str("secp256k1fx");

/// secp256k1fx's codec type IDs, the same in every chain's codec.
pub mod type_id {
    pub const TRANSFER_INPUT: u32 = 5;
    pub const MINT_OUTPUT: u32 = 6;
    pub const TRANSFER_OUTPUT: u32 = 7;
    pub const MINT_OPERATION: u32 = 8;
    pub const CREDENTIAL: u32 = 9;
}

/// [`Typed`] for a struct whose [`Encode`] form has no type ID: `id`, then the struct.
macro_rules! typed_struct {
    ($t:ty, $id:path, $context:literal) => {
        impl Typed for $t {
            const TYPED_MIN_SIZE: usize = 4 + <$t as Decode>::MIN_SIZE;
            fn encode_typed(&self, w: &mut Writer) {
                w.u32($id);
                self.encode(w);
            }
            fn decode_typed(r: &mut Reader<'_>) -> Result<Self, CodecError> {
                r.expect_type_id($id, $context)?;
                <$t as Decode>::decode(r)
            }
        }
    };
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

/// An amount owned by [`OutputOwners`] (secp256k1fx.TransferOutput). Its [`Encode`] form has no
/// type ID (as where a struct embeds it); its [`Typed`] form is type 7.
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

typed_struct!(
    TransferOutput,
    type_id::TRANSFER_OUTPUT,
    "a transferable output"
);

/// Spends an amount with the signatures at `sig_indices` (secp256k1fx.TransferInput). Its
/// [`Typed`] form is type 5.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TransferInput {
    pub amount: u64,
    pub sig_indices: Vec<u32>,
}
codec_struct!(TransferInput { amount: u64, sig_indices: Vec<u32> });

typed_struct!(
    TransferInput,
    type_id::TRANSFER_INPUT,
    "a transferable input"
);

/// The signatures that authorise an operation, by index into the owners' addresses
/// (secp256k1fx.Input embedded in a struct, so without a type ID).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SigIndices {
    pub sig_indices: Vec<u32>,
}
codec_struct!(SigIndices { sig_indices: Vec<u32> });

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
        r.expect_type_id(type_id::CREDENTIAL, "a credential")?;
        Ok(Self {
            signatures: r.vec()?,
        })
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
}
