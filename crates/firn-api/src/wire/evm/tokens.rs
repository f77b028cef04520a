//! The token shapes transfers and balances embed: ERC-20, ERC-721 and ERC-1155 tokens and NFT
//! metadata.

use firn_store::rows::evm::{NftMetadata, Token, TokenStandard, TransferRecord};
use firn_store::types::{Address, U256};
use serde::Serialize;
use utoipa::ToSchema;

use super::checksummed;
use crate::wire::{Money, TokenExtras};

/// An ERC-20 token (`Erc20Token`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20Token {
    /// Contract.
    pub address: String,
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// `decimals()`.
    pub decimals: u8,
    /// `ERC-20`.
    pub erc_type: String,
    /// Logo from the configured token list; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logo_uri: Option<String>,
    /// Price from the configured table; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<Money>,
}

impl Erc20Token {
    pub(super) fn new(address: &Address, token: Option<&Token>, extras: TokenExtras) -> Self {
        Self {
            address: checksummed(address),
            name: token.map(|t| t.name.clone()).unwrap_or_default(),
            symbol: token.map(|t| t.symbol.clone()).unwrap_or_default(),
            decimals: token.and_then(|t| t.decimals).unwrap_or(0),
            erc_type: "ERC-20".to_owned(),
            logo_uri: extras.logo_uri,
            price: extras.price,
        }
    }
}

/// NFT metadata (`Erc721TokenMetadata` / `Erc1155TokenMetadata`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenMetadata {
    /// `INDEXED`, `UNINDEXED`, … (`NftTokenMetadataStatus`).
    pub index_status: String,
    /// When the metadata was fetched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_last_updated_timestamp: Option<u64>,
    /// Name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_uri: Option<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Animation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animation_uri: Option<String>,
    /// External URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_url: Option<String>,
    /// Background colour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<String>,
    /// ERC-721 attributes, JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<String>,
    /// ERC-1155 decimals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u8>,
    /// ERC-1155 properties, JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<String>,
}

/// The statuses the official enum knows; anything else is reported as `UNKNOWN`.
const INDEX_STATUSES: [&str; 11] = [
    "UNKNOWN",
    "MISSING_TOKEN",
    "INVALID_TOKEN_URI",
    "INVALID_TOKEN_URI_SCHEME",
    "UNREACHABLE_TOKEN_URI",
    "THROTTLED_TOKEN_URI",
    "METADATA_CONTENT_TOO_LARGE",
    "INVALID_METADATA",
    "INVALID_METADATA_JSON",
    "INDEXED",
    "UNINDEXED",
];

impl TokenMetadata {
    pub(super) fn new(m: Option<&NftMetadata>, standard: TokenStandard) -> Self {
        let Some(m) = m else {
            return Self::unindexed();
        };
        let erc1155 = standard == TokenStandard::Erc1155;
        let status = if m.index_status == NftMetadata::URI_UNREAD {
            NftMetadata::UNINDEXED.to_owned()
        } else if INDEX_STATUSES.contains(&m.index_status.as_str()) {
            m.index_status.clone()
        } else {
            "UNKNOWN".to_owned()
        };
        Self {
            index_status: status,
            metadata_last_updated_timestamp: m.updated_at,
            name: m.name.clone(),
            symbol: m.symbol.clone(),
            image_uri: m.image_uri.clone(),
            description: m.description.clone(),
            animation_uri: m.animation_uri.clone(),
            external_url: m.external_url.clone(),
            background: m.background.clone(),
            attributes: if erc1155 { None } else { m.attributes.clone() },
            decimals: if erc1155 { m.decimals } else { None },
            properties: if erc1155 { m.properties.clone() } else { None },
        }
    }

    fn unindexed() -> Self {
        Self {
            index_status: "UNINDEXED".to_owned(),
            metadata_last_updated_timestamp: None,
            name: None,
            symbol: None,
            image_uri: None,
            description: None,
            animation_uri: None,
            external_url: None,
            background: None,
            attributes: None,
            decimals: None,
            properties: None,
        }
    }
}

/// An ERC-721 token (`Erc721Token`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc721Token {
    /// Contract.
    pub address: String,
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// `ERC-721`.
    pub erc_type: String,
    /// Token ID.
    pub token_id: String,
    /// `tokenURI`, empty when not fetched.
    pub token_uri: String,
    /// Metadata.
    pub metadata: TokenMetadata,
}

/// An ERC-1155 token (`Erc1155Token`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc1155Token {
    /// Contract.
    pub address: String,
    /// `ERC-1155`.
    pub erc_type: String,
    /// Token ID.
    pub token_id: String,
    /// `uri`, empty when not fetched.
    pub token_uri: String,
    /// Metadata.
    pub metadata: TokenMetadata,
}

pub(super) fn erc721_token(t: &TransferRecord) -> Erc721Token {
    if let Some(m) = &t.metadata {
        return Erc721Token::of(t.token.as_ref(), m);
    }
    let x = &t.transfer;
    Erc721Token {
        address: checksummed(&x.token),
        name: t.token.as_ref().map(|k| k.name.clone()).unwrap_or_default(),
        symbol: t
            .token
            .as_ref()
            .map(|k| k.symbol.clone())
            .unwrap_or_default(),
        erc_type: "ERC-721".to_owned(),
        token_id: x.token_id.unwrap_or(U256::ZERO).to_string(),
        token_uri: String::new(),
        metadata: TokenMetadata::unindexed(),
    }
}

pub(super) fn erc1155_token(t: &TransferRecord) -> Erc1155Token {
    if let Some(m) = &t.metadata {
        return Erc1155Token::of(m);
    }
    let x = &t.transfer;
    Erc1155Token {
        address: checksummed(&x.token),
        erc_type: "ERC-1155".to_owned(),
        token_id: x.token_id.unwrap_or(U256::ZERO).to_string(),
        token_uri: String::new(),
        metadata: TokenMetadata::unindexed(),
    }
}

impl Erc721Token {
    /// NFT `m` of collection `token`, with its metadata as far as the index has read it.
    pub fn of(token: Option<&Token>, m: &NftMetadata) -> Self {
        Erc721Token {
            address: checksummed(&m.token),
            name: token.map(|k| k.name.clone()).unwrap_or_default(),
            symbol: token.map(|k| k.symbol.clone()).unwrap_or_default(),
            erc_type: "ERC-721".to_owned(),
            token_id: m.token_id.to_string(),
            token_uri: m.token_uri.clone(),
            metadata: TokenMetadata::new(Some(m), TokenStandard::Erc721),
        }
    }
}

impl Erc1155Token {
    /// NFT `m` of an ERC-1155 collection, with its metadata as far as the index has read it.
    pub fn of(m: &NftMetadata) -> Self {
        Erc1155Token {
            address: checksummed(&m.token),
            erc_type: "ERC-1155".to_owned(),
            token_id: m.token_id.to_string(),
            token_uri: m.token_uri.clone(),
            metadata: TokenMetadata::new(Some(m), TokenStandard::Erc1155),
        }
    }
}

/// An NFT of either standard, told apart by `ercType`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum NftToken {
    /// ERC-721.
    Erc721(Erc721Token),
    /// ERC-1155.
    Erc1155(Erc1155Token),
}

impl NftToken {
    /// NFT `m` of collection `token` (`None` when `token` is not an NFT collection).
    pub fn of(token: &Token, m: &NftMetadata) -> Option<Self> {
        match token.standard {
            TokenStandard::Erc721 => Some(NftToken::Erc721(Erc721Token::of(Some(token), m))),
            TokenStandard::Erc1155 => Some(NftToken::Erc1155(Erc1155Token::of(m))),
            TokenStandard::Erc20 => None,
        }
    }
}

/// A page of a collection's NFTs (`ListNftTokens`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListNftTokens {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The NFTs, by token ID.
    pub tokens: Vec<NftToken>,
}
