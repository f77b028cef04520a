//! Deployed contracts: ERC-20, ERC-721, ERC-1155 or unknown, each with how it was deployed
//! (`Erc20Contract`, …, `ListContractsResponse`).

use firn_store::rows::evm::{ContractDeployment, ContractRecord, Token, TokenStandard};
use firn_store::types::Address;
use serde::Serialize;
use utoipa::ToSchema;

use super::checksummed;

/// How a contract was deployed (`ContractDeploymentDetails`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContractDeploymentDetails {
    /// The deploying transaction.
    pub tx_hash: String,
    /// Its sender.
    pub deployer_address: String,
    /// The factory contract, for a contract created by another one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployer_contract_address: Option<String>,
}

/// What every contract shape carries.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContractCommon {
    /// The token's `name()`, when it is a token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The contract.
    pub address: String,
    /// How it was deployed; absent when the index did not see it (a contract older than
    /// the index, or in the chain's genesis).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployment_details: Option<ContractDeploymentDetails>,
}

/// An ERC-20 contract (`Erc20Contract`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20Contract {
    /// Address, name, deployment.
    #[serde(flatten)]
    pub common: ContractCommon,
    /// `symbol()`.
    pub symbol: String,
    /// `decimals()`.
    pub decimals: u8,
}

/// An ERC-721 or ERC-1155 contract (`Erc721Contract`, `Erc1155Contract`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NftContract {
    /// Address, name, deployment.
    #[serde(flatten)]
    pub common: ContractCommon,
    /// `symbol()`.
    pub symbol: String,
}

/// A contract of any kind, told apart by `ercType`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(tag = "ercType")]
pub enum Contract {
    /// `ERC-20`.
    #[serde(rename = "ERC-20")]
    Erc20(Erc20Contract),
    /// `ERC-721`.
    #[serde(rename = "ERC-721")]
    Erc721(NftContract),
    /// `ERC-1155`.
    #[serde(rename = "ERC-1155")]
    Erc1155(NftContract),
    /// Not a token the indexer knows (`UnknownContract`).
    #[serde(rename = "UNKNOWN")]
    Unknown(ContractCommon),
}

impl Contract {
    /// Contract `address`, from its deployment (with the deploying transaction's sender) and
    /// its token metadata, whichever the index holds.
    pub fn new(
        address: &Address,
        deployment: Option<(&ContractDeployment, &Address)>,
        token: Option<&Token>,
    ) -> Self {
        let common = ContractCommon {
            name: token.map(|t| t.name.clone()),
            address: checksummed(address),
            deployment_details: deployment.map(|(d, tx_from)| ContractDeploymentDetails {
                tx_hash: d.tx_hash.to_string(),
                deployer_address: checksummed(tx_from),
                deployer_contract_address: d.trace_index.map(|_| checksummed(&d.deployer)),
            }),
        };
        let Some(token) = token else {
            return Contract::Unknown(common);
        };
        let symbol = token.symbol.clone();
        match token.standard {
            TokenStandard::Erc20 => Contract::Erc20(Erc20Contract {
                common,
                symbol,
                decimals: token.decimals.unwrap_or(0),
            }),
            TokenStandard::Erc721 => Contract::Erc721(NftContract { common, symbol }),
            TokenStandard::Erc1155 => Contract::Erc1155(NftContract { common, symbol }),
        }
    }
}

impl From<&ContractRecord> for Contract {
    fn from(c: &ContractRecord) -> Self {
        let d = &c.deployment;
        Contract::new(&d.address, Some((d, &c.tx_from)), c.token.as_ref())
    }
}

/// A page of contracts (`ListContractsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListContractsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Contracts, newest first.
    pub contracts: Vec<Contract>,
}
