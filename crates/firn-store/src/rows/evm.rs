//! EVM rows (C-Chain and every L1): blocks, transactions, logs, internal transactions, token
//! transfers, token metadata, collectible balances and contract deployments.

use firn_core::ids::Id;

use super::text_enum;
use crate::types::{Address, B256, U256};

/// An indexed EVM chain (the chains list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmChainRecord {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Avalanche blockchain ID.
    pub blockchain_id: Id,
    /// Subnet.
    pub subnet_id: Id,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Whether the chain belongs to a test network.
    pub is_testnet: bool,
    /// Native token name.
    pub token_name: String,
    /// Native token symbol.
    pub token_symbol: String,
    /// Native token decimals.
    pub token_decimals: u8,
    /// RPC URL.
    pub rpc_url: String,
}

/// How callers name an EVM chain: by EVM chain ID or by blockchain ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainRef {
    /// EVM chain ID.
    Evm(u64),
    /// Avalanche blockchain ID.
    Blockchain(Id),
}

/// Everything one accepted EVM block writes: the unit of atomic commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmBlockRows {
    /// EVM chain ID (the chain must be registered first).
    pub chain_id: u64,
    /// Header.
    pub block: EvmBlock,
    /// Transactions with their receipts, in block order.
    pub txs: Vec<EvmTx>,
    /// Logs, in block order.
    pub logs: Vec<EvmLog>,
    /// Internal calls from traces.
    pub internal_txs: Vec<EvmInternalTx>,
    /// ERC-20/721/1155 transfers decoded from the logs.
    pub transfers: Vec<TokenTransfer>,
    /// Token contracts first seen (or re-read) in this block; upserted.
    pub tokens: Vec<Token>,
    /// The C-Chain's atomic txs the block carries (none on other chains).
    pub atomic_txs: Vec<crate::rows::atomic::CAtomicTx>,
    /// The ICM messenger's events, in log order.
    pub icm: Vec<crate::rows::icm::IcmLog>,
}

/// An EVM block header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmBlock {
    /// Number.
    pub number: u64,
    /// Hash.
    pub hash: B256,
    /// Parent hash.
    pub parent_hash: B256,
    /// Time, Unix seconds.
    pub timestamp: u64,
    /// Gas used.
    pub gas_used: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// Base fee (post-London).
    pub base_fee: Option<U256>,
    /// Block gas cost (subnet-evm).
    pub block_gas_cost: Option<U256>,
    /// Receipts trie root; `None` for blocks indexed before the store kept it.
    pub receipts_root: Option<B256>,
    /// Encoded size.
    pub size_bytes: u64,
}

/// A stored block with what the store derives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmBlockRecord {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Header as written.
    pub block: EvmBlock,
    /// Number of transactions.
    pub tx_count: u64,
    /// Sum of `gas_used * gas_price` over the transactions.
    pub fees_spent: U256,
    /// Transactions on the chain up to and including this block.
    pub cumulative_txs: u64,
}

/// A transaction with its receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmTx {
    /// Index in the block.
    pub index: u32,
    /// Hash.
    pub hash: B256,
    /// Sender.
    pub from: Address,
    /// Recipient; `None` for contract creation.
    pub to: Option<Address>,
    /// Value, wei.
    pub value: U256,
    /// Nonce.
    pub nonce: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// Gas used (receipt).
    pub gas_used: u64,
    /// Effective gas price (receipt).
    pub gas_price: U256,
    /// EIP-1559 max fee.
    pub max_fee: Option<U256>,
    /// EIP-1559 max priority fee.
    pub max_priority_fee: Option<U256>,
    /// Transaction type (0, 1, 2, …).
    pub tx_type: u8,
    /// Receipt status.
    pub success: bool,
    /// Input data.
    pub input: Vec<u8>,
    /// Contract created by a creation transaction.
    pub contract_address: Option<Address>,
}

/// A stored transaction with its block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmTxRecord {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Block number.
    pub block_number: u64,
    /// Block hash.
    pub block_hash: B256,
    /// Block time.
    pub timestamp: u64,
    /// The transaction.
    pub tx: EvmTx,
}

/// A log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmLog {
    /// Index of the emitting transaction.
    pub tx_index: u32,
    /// Index in the block.
    pub log_index: u32,
    /// Emitting contract.
    pub address: Address,
    /// Topics (0 to 4).
    pub topics: Vec<B256>,
    /// Data.
    pub data: Vec<u8>,
}

/// An internal call from a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmInternalTx {
    /// Index of the enclosing transaction.
    pub tx_index: u32,
    /// Position in the trace (depth-first).
    pub trace_index: u32,
    /// Caller.
    pub from: Address,
    /// Callee, or the created contract.
    pub to: Address,
    /// `CALL`, `CREATE`, `CREATE2`, `DELEGATECALL`, `STATICCALL`, `CALLCODE`, …
    pub call_type: String,
    /// Value, wei.
    pub value: U256,
    /// Gas used.
    pub gas_used: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// Whether the call reverted.
    pub reverted: bool,
}

impl EvmInternalTx {
    /// Whether this call is one an address's activity shows: a `CALL` or `CALLCODE` that
    /// carries value, or a contract creation. Other calls move nothing (`DELEGATECALL` runs
    /// code in the caller's own context). The store's partial indexes hold the same rows.
    pub fn moves_value(&self) -> bool {
        match self.call_type.as_str() {
            "CREATE" | "CREATE2" => true,
            "CALL" | "CALLCODE" => !self.value.is_zero(),
            _ => false,
        }
    }
}

/// An internal call with the block and transaction it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalTxRecord {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Block number.
    pub block_number: u64,
    /// Block hash.
    pub block_hash: B256,
    /// Block time.
    pub timestamp: u64,
    /// Transaction hash.
    pub tx_hash: B256,
    /// The call.
    pub internal: EvmInternalTx,
}

text_enum!(
    /// Token standard.
    TokenStandard {
        /// ERC-20.
        Erc20 = "ERC-20",
        /// ERC-721.
        Erc721 = "ERC-721",
        /// ERC-1155.
        Erc1155 = "ERC-1155",
    }
);

impl TokenStandard {
    pub(crate) fn code(self) -> i64 {
        match self {
            TokenStandard::Erc20 => 20,
            TokenStandard::Erc721 => 721,
            TokenStandard::Erc1155 => 1155,
        }
    }

    pub(crate) fn from_code(column: &'static str, code: i64) -> crate::Result<Self> {
        match code {
            20 => Ok(TokenStandard::Erc20),
            721 => Ok(TokenStandard::Erc721),
            1155 => Ok(TokenStandard::Erc1155),
            other => Err(crate::StoreError::Corrupt {
                column,
                reason: format!("unknown token standard {other}"),
            }),
        }
    }
}

/// A token transfer decoded from a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenTransfer {
    /// Index of the transaction.
    pub tx_index: u32,
    /// Log index in the block.
    pub log_index: u32,
    /// Entry in an ERC-1155 `TransferBatch` (0 otherwise).
    pub batch_index: u32,
    /// Token contract.
    pub token: Address,
    /// Standard.
    pub standard: TokenStandard,
    /// Sender (zero address on mint).
    pub from: Address,
    /// Recipient (zero address on burn).
    pub to: Address,
    /// Token ID (ERC-721 and ERC-1155).
    pub token_id: Option<U256>,
    /// Amount (ERC-20 and ERC-1155; 1 for ERC-721).
    pub value: U256,
}

/// A stored transfer with its block, transaction and token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferRecord {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Block number.
    pub block_number: u64,
    /// Block hash.
    pub block_hash: B256,
    /// Block time.
    pub timestamp: u64,
    /// Transaction hash.
    pub tx_hash: B256,
    /// The transfer.
    pub transfer: TokenTransfer,
    /// Token metadata, when known.
    pub token: Option<Token>,
    /// An NFT's metadata as far as the indexer has read it (none for ERC-20, or a token ID
    /// the index never saw minted).
    pub metadata: Option<NftMetadata>,
}

/// Token contract metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Contract.
    pub address: Address,
    /// Standard.
    pub standard: TokenStandard,
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// `decimals()` (ERC-20).
    pub decimals: Option<u8>,
}

/// The NFT metadata rows still to index, one queue per step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataQueue {
    /// `tokenURI`/`uri` still to read ([`NftMetadata::URI_UNREAD`]).
    UnreadUri,
    /// The document at the URI still to fetch ([`NftMetadata::UNINDEXED`]).
    Unfetched,
}

impl MetadataQueue {
    /// The `index_status` of the queue's rows.
    pub fn status(self) -> &'static str {
        match self {
            Self::UnreadUri => NftMetadata::URI_UNREAD,
            Self::Unfetched => NftMetadata::UNINDEXED,
        }
    }
}

/// What became of a request to read an NFT's metadata again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReindexRequest {
    /// Queued: the metadata worker reads the token URI and the document again.
    Queued,
    /// Asked less than [`REINDEX_INTERVAL_SECS`] ago: allowed again in this many seconds.
    TooSoon {
        /// Seconds until the token may be queued again.
        retry_after: u64,
    },
    /// The index has seen no such token minted.
    Unknown,
}

/// How often one token's metadata may be queued again.
pub const REINDEX_INTERVAL_SECS: u64 = 3_600;

/// Metadata of one NFT (ERC-721 `tokenURI` or ERC-1155 `uri`) and its fetch status.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NftMetadata {
    /// Token contract.
    pub token: Address,
    /// Token ID.
    pub token_id: U256,
    /// `tokenURI` / `uri`.
    pub token_uri: String,
    /// `INDEXED`, `UNINDEXED`, `INVALID_TOKEN_URI`, … as the Data API spells it, or
    /// [`NftMetadata::URI_UNREAD`].
    pub index_status: String,
    /// When the metadata was last fetched.
    pub updated_at: Option<u64>,
    /// Metadata `name`.
    pub name: Option<String>,
    /// Metadata `symbol`.
    pub symbol: Option<String>,
    /// Metadata `image`.
    pub image_uri: Option<String>,
    /// Metadata `description`.
    pub description: Option<String>,
    /// Metadata `animation_url`.
    pub animation_uri: Option<String>,
    /// Metadata `external_url`.
    pub external_url: Option<String>,
    /// Metadata `background_color`.
    pub background: Option<String>,
    /// ERC-721 attributes, as JSON text.
    pub attributes: Option<String>,
    /// ERC-1155 properties, as JSON text.
    pub properties: Option<String>,
    /// ERC-1155 decimals.
    pub decimals: Option<u8>,
}

impl NftMetadata {
    /// The status of a minted NFT whose `tokenURI` is still to read (the Data API shows it as
    /// `UNINDEXED`).
    pub const URI_UNREAD: &'static str = "URI_UNREAD";
    /// The status of an NFT whose metadata document is still to fetch.
    pub const UNINDEXED: &'static str = "UNINDEXED";
}

/// A current collectible holding: ERC-721 ownership or a non-zero ERC-1155 balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectibleRecord {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Holder.
    pub owner: Address,
    /// Token contract.
    pub token: Address,
    /// Token ID.
    pub token_id: U256,
    /// ERC-721 or ERC-1155.
    pub standard: TokenStandard,
    /// Balance (1 for ERC-721).
    pub balance: U256,
    /// Contract metadata, when known.
    pub token_info: Option<Token>,
    /// NFT metadata, when fetched.
    pub metadata: Option<NftMetadata>,
}

/// An ERC-20 balance, folded from the token's transfers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Erc20BalanceRecord {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Holder.
    pub owner: Address,
    /// Token contract.
    pub token: Address,
    /// Balance, in the token's smallest unit.
    pub balance: U256,
    /// Contract metadata, when known.
    pub token_info: Option<Token>,
}

/// Evidence that an ERC-20 token's `balanceOf` disagrees with the balances folded from its
/// transfers (a rebasing or fee-on-transfer token, or one that lies): one holder's balances at
/// one block. The index keeps the first such evidence per token; balances of these tokens are
/// read from the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceMismatch {
    /// Token contract.
    pub token: Address,
    /// The block both balances are at.
    pub block_number: u64,
    /// The holder compared.
    pub holder: Address,
    /// The balance folded from the token's transfers.
    pub derived: U256,
    /// What the token's `balanceOf` said.
    pub reported: U256,
}

/// How a contract was deployed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractDeployment {
    /// EVM chain ID.
    pub chain_id: u64,
    /// The contract.
    pub address: Address,
    /// The creating account: the sender for a creation transaction, the factory for an
    /// internal `CREATE`/`CREATE2`.
    pub deployer: Address,
    /// Transaction.
    pub tx_hash: B256,
    /// Block number.
    pub block_number: u64,
    /// Transaction index.
    pub tx_index: u32,
    /// Trace position for internal creations; `None` for a creation transaction.
    pub trace_index: Option<u32>,
    /// `CREATE` (also for creation transactions) or `CREATE2`.
    pub kind: String,
    /// Block time.
    pub timestamp: u64,
}

/// A deployed contract as lists show it: its deployment, the sender of the transaction that
/// made it, and its token metadata when it is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractRecord {
    /// How it was deployed.
    pub deployment: ContractDeployment,
    /// Sender of the deploying transaction (the deployer itself for a creation transaction).
    pub tx_from: Address,
    /// Token metadata, when the contract is a token the indexer knows.
    pub token: Option<Token>,
}
