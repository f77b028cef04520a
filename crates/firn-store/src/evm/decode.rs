//! Decoding EVM rows, and the select lists and joins that complete them, shared by the reads
//! in `read` and `activity`.

use crate::codec::RowExt;
use crate::error::Result;
use crate::row::Row;
use crate::rows::evm::{
    CollectibleRecord, ContractDeployment, Erc20BalanceRecord, EvmBlock, EvmBlockRecord,
    EvmChainRecord, EvmInternalTx, EvmTx, EvmTxRecord, NftMetadata, Token, TokenStandard,
    TokenTransfer, TransferRecord,
};

pub(super) fn decode_chain(r: &dyn Row) -> Result<EvmChainRecord> {
    Ok(EvmChainRecord {
        chain_id: r.u64("chain_id")?,
        blockchain_id: r.id("blockchain_id")?,
        subnet_id: r.id("subnet_id")?,
        name: r.text("name")?,
        description: r.text("description")?,
        is_testnet: r.bool("is_testnet")?,
        token_name: r.text("token_name")?,
        token_symbol: r.text("token_symbol")?,
        token_decimals: u8::try_from(r.u64("token_decimals")?).unwrap_or(u8::MAX),
        rpc_url: r.text("rpc_url")?,
    })
}

pub(super) fn decode_block(r: &dyn Row) -> Result<EvmBlockRecord> {
    Ok(EvmBlockRecord {
        chain_id: r.u64("chain_id")?,
        block: EvmBlock {
            number: r.u64("number")?,
            hash: r.b256("hash")?,
            parent_hash: r.b256("parent_hash")?,
            timestamp: r.u64("timestamp")?,
            gas_used: r.u64("gas_used")?,
            gas_limit: r.u64("gas_limit")?,
            base_fee: r.opt_u256("base_fee")?,
            block_gas_cost: r.opt_u256("block_gas_cost")?,
            receipts_root: r.opt_fixed("receipts_root")?.map(crate::types::B256::new),
            size_bytes: r.u64("size_bytes")?,
        },
        tx_count: r.u64("tx_count")?,
        fees_spent: r.u256("fees_spent")?,
        cumulative_txs: r.u64("cumulative_txs")?,
    })
}

/// Decodes `evm_txs.*` plus `block_hash`.
pub(super) fn decode_tx(r: &dyn Row) -> Result<EvmTxRecord> {
    Ok(EvmTxRecord {
        chain_id: r.u64("chain_id")?,
        block_number: r.u64("number")?,
        block_hash: r.b256("block_hash")?,
        timestamp: r.u64("timestamp")?,
        tx: EvmTx {
            index: r.u32("tx_index")?,
            hash: r.b256("hash")?,
            from: r.address("from_addr")?,
            to: r.opt_address("to_addr")?,
            value: r.u256("value")?,
            nonce: r.bits("nonce")?,
            gas_limit: r.u64("gas_limit")?,
            gas_used: r.u64("gas_used")?,
            gas_price: r.u256("gas_price")?,
            max_fee: r.opt_u256("max_fee")?,
            max_priority_fee: r.opt_u256("max_priority_fee")?,
            tx_type: u8::try_from(r.u64("tx_type")?).unwrap_or(u8::MAX),
            success: r.bool("success")?,
            input: r.bytes("input")?,
            contract_address: r.opt_address("contract_address")?,
        },
    })
}

/// Decodes `evm_internal_txs.*`.
pub(super) fn decode_internal(r: &dyn Row) -> Result<EvmInternalTx> {
    Ok(EvmInternalTx {
        tx_index: r.u32("tx_index")?,
        trace_index: r.u32("trace_index")?,
        from: r.address("from_addr")?,
        to: r.address("to_addr")?,
        call_type: r.text("call_type")?,
        value: r.u256("value")?,
        gas_used: r.u64("gas_used")?,
        gas_limit: r.u64("gas_limit")?,
        reverted: r.bool("reverted")?,
    })
}

/// Decodes the `tk_*` columns of a `LEFT JOIN evm_tokens tk`.
pub(super) fn decode_token_join(r: &dyn Row) -> Result<Option<Token>> {
    let Some(address) = r.opt_address("tk_address")? else {
        return Ok(None);
    };
    Ok(Some(Token {
        address,
        standard: TokenStandard::from_code("standard", r.i64("tk_standard")?)?,
        name: r.text("tk_name")?,
        symbol: r.text("tk_symbol")?,
        decimals: r
            .opt_u64("tk_decimals")?
            .map(|d| u8::try_from(d).unwrap_or(u8::MAX)),
    }))
}

/// The token columns (of `tk`, an `evm_tokens` join), as a literal so that select lists can
/// `concat!` it.
macro_rules! token_columns {
    () => {
        "tk.address AS tk_address, tk.standard AS tk_standard, \
    tk.name AS tk_name, tk.symbol AS tk_symbol, tk.decimals AS tk_decimals"
    };
}

pub(super) const TOKEN_COLUMNS: &str = token_columns!();

pub(super) fn decode_transfer(r: &dyn Row) -> Result<TransferRecord> {
    Ok(TransferRecord {
        chain_id: r.u64("chain_id")?,
        block_number: r.u64("number")?,
        block_hash: r.b256("block_hash")?,
        timestamp: r.u64("block_ts")?,
        tx_hash: r.b256("tx_hash")?,
        transfer: TokenTransfer {
            tx_index: r.u32("tx_index")?,
            log_index: r.u32("log_index")?,
            batch_index: r.u32("batch_index")?,
            token: r.address("token")?,
            standard: TokenStandard::from_code("standard", r.i64("standard")?)?,
            from: r.address("from_addr")?,
            to: r.address("to_addr")?,
            token_id: r.opt_u256("token_id")?,
            value: r.u256("value")?,
        },
        token: decode_token_join(r)?,
        metadata: decode_metadata(r)?,
    })
}

/// The NFT metadata columns (of `m`, an `evm_nft_metadata` join), as a literal so that select
/// lists can `concat!` it.
macro_rules! metadata_columns {
    () => {
        "m.token AS m_token, m.token_id AS m_token_id, m.token_uri, \
    m.index_status, m.updated_at, m.name AS m_name, m.symbol AS m_symbol, m.image_uri, \
    m.description, m.animation_uri, m.external_url, m.background, m.attributes, m.properties, \
    m.decimals AS m_decimals"
    };
}

/// Select list and joins that complete a transfer row (`tr`) with block, tx, token and (for
/// an NFT) the metadata the indexer has read.
pub(super) const TRANSFER_SELECT: &str = concat!(
    "SELECT tr.*, b.hash AS block_hash, b.timestamp AS block_ts, tx.hash AS tx_hash, ",
    token_columns!(),
    ", ",
    metadata_columns!()
);
pub(super) const TRANSFER_JOINS: &str = " JOIN evm_blocks b ON b.chain_id = tr.chain_id AND b.number = tr.number \
    JOIN evm_txs tx ON tx.chain_id = tr.chain_id AND tx.number = tr.number AND tx.tx_index = tr.tx_index \
    LEFT JOIN evm_tokens tk ON tk.chain_id = tr.chain_id AND tk.address = tr.token \
    LEFT JOIN evm_nft_metadata m ON m.chain_id = tr.chain_id AND m.token = tr.token \
    AND m.token_id = tr.token_id";

pub(super) fn decode_metadata(r: &dyn Row) -> Result<Option<NftMetadata>> {
    let Some(index_status) = r.opt_text("index_status")? else {
        return Ok(None);
    };
    Ok(Some(NftMetadata {
        token: r.address("m_token")?,
        token_id: r.u256("m_token_id")?,
        token_uri: r.text("token_uri")?,
        index_status,
        updated_at: r.opt_u64("updated_at")?,
        name: r.opt_text("m_name")?,
        symbol: r.opt_text("m_symbol")?,
        image_uri: r.opt_text("image_uri")?,
        description: r.opt_text("description")?,
        animation_uri: r.opt_text("animation_uri")?,
        external_url: r.opt_text("external_url")?,
        background: r.opt_text("background")?,
        attributes: r.opt_text("attributes")?,
        properties: r.opt_text("properties")?,
        decimals: r
            .opt_u64("m_decimals")?
            .map(|d| u8::try_from(d).unwrap_or(u8::MAX)),
    }))
}

pub(super) const METADATA_COLUMNS: &str = metadata_columns!();

pub(super) fn decode_collectible(r: &dyn Row) -> Result<CollectibleRecord> {
    Ok(CollectibleRecord {
        chain_id: r.u64("chain_id")?,
        owner: r.address("owner")?,
        token: r.address("token")?,
        token_id: r.u256("token_id")?,
        standard: TokenStandard::from_code("standard", r.i64("standard")?)?,
        balance: r.u256("balance")?,
        token_info: decode_token_join(r)?,
        metadata: decode_metadata(r)?,
    })
}

pub(super) fn decode_erc20_balance(r: &dyn Row) -> Result<Erc20BalanceRecord> {
    Ok(Erc20BalanceRecord {
        chain_id: r.u64("chain_id")?,
        owner: r.address("owner")?,
        token: r.address("token")?,
        balance: r.u256("balance")?,
        token_info: decode_token_join(r)?,
    })
}

pub(super) fn decode_deployment(r: &dyn Row) -> Result<ContractDeployment> {
    Ok(ContractDeployment {
        chain_id: r.u64("chain_id")?,
        address: r.address("address")?,
        deployer: r.address("deployer")?,
        tx_hash: r.b256("tx_hash")?,
        block_number: r.u64("number")?,
        tx_index: r.u32("tx_index")?,
        trace_index: r
            .opt_u64("trace_index")?
            .map(|t| u32::try_from(t).unwrap_or(u32::MAX)),
        kind: r.text("kind")?,
        timestamp: r.u64("timestamp")?,
    })
}
