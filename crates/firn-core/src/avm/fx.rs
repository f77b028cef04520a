//! The X-Chain's feature extensions on the wire: the outputs, operations and credentials of
//! secp256k1fx, nftfx and propertyfx, under the type IDs the AVM's codec gives them.
//!
//! Go holds these behind interfaces (`verify.State`, `fxs.FxOperation`, `verify.Verifiable`);
//! each interface is an enum here, holding exactly the registered types that implement it.
//! Structs that one fx type embeds in another (a mint operation's output, the owners of an
//! NFT) are written without a type ID, as Go's codec writes concrete fields.

use super::type_id;
use crate::avax::secp256k1fx::{OutputOwners, SigIndices, SignatureBytes, TransferOutput};
use crate::codec::{Bytes, CodecError, Decode, Encode, Reader, Writer};
use crate::codec_struct;
use crate::ids::Id;

/// One of the X-Chain's three feature extensions, in the order the X-Chain registers them
/// (its genesis lists them so; an initial state's `fx_index` counts in this order).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fx {
    Secp256k1,
    Nft,
    Property,
}

impl Fx {
    /// The fx's ID: its name padded with zeros, as AvalancheGo names fxs.
    pub fn id(self) -> Id {
        match self {
            Fx::Secp256k1 => crate::avax::secp256k1fx::SECP256K1FX_ID,
            Fx::Nft => Id::from_padded_str("nftfx"),
            Fx::Property => Id::from_padded_str("propertyfx"),
        }
    }

    /// The fx at `index` in the X-Chain's registration order.
    pub fn from_index(index: u32) -> Option<Self> {
        [Fx::Secp256k1, Fx::Nft, Fx::Property]
            .get(index as usize)
            .copied()
    }

    /// The fx's credential type ID.
    pub fn credential_type_id(self) -> u32 {
        match self {
            Fx::Secp256k1 => type_id::SECP256K1FX_CREDENTIAL,
            Fx::Nft => type_id::NFTFX_CREDENTIAL,
            Fx::Property => type_id::PROPERTYFX_CREDENTIAL,
        }
    }
}

/// nftfx.MintOutput: who may mint NFTs of group `group_id`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NftMintOutput {
    pub group_id: u32,
    pub owners: OutputOwners,
}
codec_struct!(NftMintOutput {
    group_id: u32,
    owners: OutputOwners
});

/// nftfx.TransferOutput: one NFT of group `group_id`, its `payload`, and who owns it.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NftTransferOutput {
    pub group_id: u32,
    pub payload: Bytes,
    pub owners: OutputOwners,
}
codec_struct!(NftTransferOutput {
    group_id: u32,
    payload: Bytes,
    owners: OutputOwners
});

crate::codec_enum! {
    /// An output behind `verify.State`: what an initial state or a UTXO holds.
    pub enum FxOutput ("an X-Chain output (verify.State)", min OutputOwners) {
        /// An amount of a fungible asset.
        Secp256k1Transfer(TransferOutput) = type_id::SECP256K1FX_TRANSFER_OUTPUT, "secp256k1fx.TransferOutput";
        /// Who may mint more of a variable-cap asset.
        Secp256k1Mint(OutputOwners) = type_id::SECP256K1FX_MINT_OUTPUT, "secp256k1fx.MintOutput";
        NftMint(NftMintOutput) = type_id::NFTFX_MINT_OUTPUT, "nftfx.MintOutput";
        NftTransfer(NftTransferOutput) = type_id::NFTFX_TRANSFER_OUTPUT, "nftfx.TransferOutput";
        PropertyMint(OutputOwners) = type_id::PROPERTYFX_MINT_OUTPUT, "propertyfx.MintOutput";
        PropertyOwned(OutputOwners) = type_id::PROPERTYFX_OWNED_OUTPUT, "propertyfx.OwnedOutput";
    }
}

impl FxOutput {
    /// The fx the output belongs to.
    pub fn fx(&self) -> Fx {
        match self {
            FxOutput::Secp256k1Transfer(_) | FxOutput::Secp256k1Mint(_) => Fx::Secp256k1,
            FxOutput::NftMint(_) | FxOutput::NftTransfer(_) => Fx::Nft,
            FxOutput::PropertyMint(_) | FxOutput::PropertyOwned(_) => Fx::Property,
        }
    }

    /// Who owns the output.
    pub fn owners(&self) -> &OutputOwners {
        match self {
            FxOutput::Secp256k1Transfer(t) => &t.owners,
            FxOutput::NftMint(n) => &n.owners,
            FxOutput::NftTransfer(n) => &n.owners,
            FxOutput::Secp256k1Mint(o) | FxOutput::PropertyMint(o) | FxOutput::PropertyOwned(o) => {
                o
            }
        }
    }
}

crate::typed_by_codec!(FxOutput);

/// secp256k1fx.MintOperation: spends a mint output, recreating it and minting an amount.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Secp256k1MintOperation {
    pub mint_input: SigIndices,
    /// The recreated secp256k1fx.MintOutput.
    pub mint_output: OutputOwners,
    pub transfer_output: TransferOutput,
}
codec_struct!(Secp256k1MintOperation {
    mint_input: SigIndices,
    mint_output: OutputOwners,
    transfer_output: TransferOutput
});

/// nftfx.MintOperation: mints one NFT of `group_id` with `payload` for each of `outputs`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NftMintOperation {
    pub mint_input: SigIndices,
    pub group_id: u32,
    pub payload: Bytes,
    pub outputs: Vec<OutputOwners>,
}
codec_struct!(NftMintOperation {
    mint_input: SigIndices,
    group_id: u32,
    payload: Bytes,
    outputs: Vec<OutputOwners>
});

/// nftfx.TransferOperation: moves an NFT to new owners.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NftTransferOperation {
    pub input: SigIndices,
    pub output: NftTransferOutput,
}
codec_struct!(NftTransferOperation {
    input: SigIndices,
    output: NftTransferOutput
});

/// propertyfx.MintOperation: spends a mint output, recreating it and creating an owned output.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PropertyMintOperation {
    pub mint_input: SigIndices,
    /// The recreated propertyfx.MintOutput.
    pub mint_output: OutputOwners,
    /// The new propertyfx.OwnedOutput.
    pub owned_output: OutputOwners,
}
codec_struct!(PropertyMintOperation {
    mint_input: SigIndices,
    mint_output: OutputOwners,
    owned_output: OutputOwners
});

crate::codec_enum! {
    /// An operation behind `fxs.FxOperation`: what an OperationTx does to the UTXOs it names.
    pub enum FxOperation ("an X-Chain operation (fxs.FxOperation)", min SigIndices) {
        Secp256k1Mint(Secp256k1MintOperation) = type_id::SECP256K1FX_MINT_OPERATION, "secp256k1fx.MintOperation";
        NftMint(NftMintOperation) = type_id::NFTFX_MINT_OPERATION, "nftfx.MintOperation";
        NftTransfer(NftTransferOperation) = type_id::NFTFX_TRANSFER_OPERATION, "nftfx.TransferOperation";
        PropertyMint(PropertyMintOperation) = type_id::PROPERTYFX_MINT_OPERATION, "propertyfx.MintOperation";
        /// The signatures that burn an owned output.
        PropertyBurn(SigIndices) = type_id::PROPERTYFX_BURN_OPERATION, "propertyfx.BurnOperation";
    }
}

impl FxOperation {
    /// The fx the operation belongs to.
    pub fn fx(&self) -> Fx {
        match self {
            FxOperation::Secp256k1Mint(_) => Fx::Secp256k1,
            FxOperation::NftMint(_) | FxOperation::NftTransfer(_) => Fx::Nft,
            FxOperation::PropertyMint(_) | FxOperation::PropertyBurn(_) => Fx::Property,
        }
    }

    /// The outputs the operation creates, in order (`FxOperation.Outs`): an OperationTx's
    /// UTXOs take these after its own outputs, operation by operation.
    pub fn outputs(&self) -> Vec<FxOutput> {
        match self {
            FxOperation::Secp256k1Mint(m) => vec![
                FxOutput::Secp256k1Mint(m.mint_output.clone()),
                FxOutput::Secp256k1Transfer(m.transfer_output.clone()),
            ],
            // One NFT per owner list, each with the group and payload.
            FxOperation::NftMint(m) => m
                .outputs
                .iter()
                .map(|owners| {
                    FxOutput::NftTransfer(NftTransferOutput {
                        group_id: m.group_id,
                        payload: m.payload.clone(),
                        owners: owners.clone(),
                    })
                })
                .collect(),
            FxOperation::NftTransfer(t) => vec![FxOutput::NftTransfer(t.output.clone())],
            FxOperation::PropertyMint(m) => vec![
                FxOutput::PropertyMint(m.mint_output.clone()),
                FxOutput::PropertyOwned(m.owned_output.clone()),
            ],
            FxOperation::PropertyBurn(_) => Vec::new(),
        }
    }
}

/// The signatures for one input or operation (fxs.FxCredential), under the credential type of
/// the fx that checks them: secp256k1fx (9), nftfx (14) or propertyfx (19). The last two embed
/// a secp256k1fx credential, so all three carry the same signature list.
///
/// Go's codec would read any registered type with a `Verify` method here (an output, say);
/// no such tx can be valid, as every fx rejects a credential not of its own type, so only the
/// three credential types decode.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Credential {
    pub fx: Fx,
    pub signatures: Vec<SignatureBytes>,
}

impl Encode for Credential {
    fn encode(&self, w: &mut Writer) {
        w.u32(self.fx.credential_type_id());
        w.vec(&self.signatures);
    }
}

impl Decode for Credential {
    const MIN_SIZE: usize = 8;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let fx = match r.u32()? {
            type_id::SECP256K1FX_CREDENTIAL => Fx::Secp256k1,
            type_id::NFTFX_CREDENTIAL => Fx::Nft,
            type_id::PROPERTYFX_CREDENTIAL => Fx::Property,
            type_id => {
                return Err(CodecError::UnknownTypeId {
                    type_id,
                    context: "an X-Chain credential",
                });
            }
        };
        Ok(Self {
            fx,
            signatures: r.vec()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fx_ids_print_as_avalanchego_does() {
        assert_eq!(
            Fx::Nft.id().to_string(),
            "qd2U4HDWUvMrVUeTcCHp6xH3Qpnn1XbU5MDdnBoiifFqvgXwT"
        );
        assert_eq!(
            Fx::Property.id().to_string(),
            "rXJsCSEYXg2TehWxCEEGj6JU2PWKTkd6cBdNLjoe2SpsKD9cy"
        );
        assert_eq!(Fx::from_index(1), Some(Fx::Nft));
        assert_eq!(Fx::from_index(3), None);
    }

    #[test]
    fn a_transfer_input_is_not_an_output() {
        let bytes = [0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0];
        assert_eq!(
            FxOutput::decode(&mut Reader::new(&bytes)),
            Err(CodecError::UnknownTypeId {
                type_id: 5,
                context: "an X-Chain output (verify.State)"
            })
        );
    }
}
