//! EVM reads.

use super::decode::{
    METADATA_COLUMNS, TOKEN_COLUMNS, TRANSFER_JOINS, TRANSFER_SELECT, decode_block, decode_chain,
    decode_collectible, decode_deployment, decode_erc20_balance, decode_internal, decode_metadata,
    decode_token_join, decode_transfer, decode_tx,
};
use super::{MAX_LISTED_CONTRACTS, MAX_ROWS_PER_TX, address_lookup};
use crate::codec::{RowExt, int, u256};
use crate::error::{Result, StoreError};
use crate::page::{
    CollectibleCursor, DeploymentCursor, EventCursor, HeightCursor, Page, PageRequest, TokenCursor,
    TxCursor,
};
use crate::row::Row;
use crate::rows::evm::{
    BalanceMismatch, ChainRef, CollectibleRecord, ContractDeployment, ContractRecord,
    Erc20BalanceRecord, EvmBlockRecord, EvmChainRecord, EvmInternalTx, EvmLog, EvmTxRecord,
    InternalTxRecord, MetadataQueue, NftMetadata, Token, TokenStandard, TransferRecord,
};
use crate::sql::Sql;
use crate::store::Store;
use crate::traits::{
    AddressFilter, EvmReader, EvmTxEffects, EvmTxFilter, TransferFilter, TxParties,
};
use crate::types::{Address, B256, U256};

/// Appends ` AND number >= start AND number < end` for a block range, and ` AND (columns) <
/// (…)` for the rows after an event cursor (`columns`: the block number and two positions).
pub(super) fn push_range_after(
    q: &mut Sql,
    (start_block, end_block): (Option<u64>, Option<u64>),
    after: Option<EventCursor>,
    columns: &str,
) -> Result<()> {
    if let Some(b) = start_block {
        q.push(" AND number >= ").bind(int("start block", b)?);
    }
    if let Some(b) = end_block {
        q.push(" AND number < ").bind(int("end block", b)?);
    }
    if let Some(c) = after {
        q.push(&format!(" AND ({columns}) < ("))
            .bind(int("cursor", c.height)?)
            .push(", ")
            .bind(i64::from(c.index))
            .push(", ")
            .bind(i64::from(c.sub))
            .push(")");
    }
    Ok(())
}

const TX_SELECT: &str = "SELECT t.*, b.hash AS block_hash FROM evm_txs t \
    JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.number";

impl Store {
    /// The rows `select` (ending in `WHERE`) finds for one tx, decoded: `select` continues
    /// with `{alias}chain_id = … AND {alias}number = … AND {alias}tx_index = …` and `tail`.
    async fn rows_of_tx<T: Send + 'static>(
        &self,
        chain_id: u64,
        hash: &B256,
        (select, alias, tail): (&str, &str, &str),
        decode: fn(&dyn Row) -> Result<T>,
    ) -> Result<Vec<T>> {
        let chain = int("chain id", chain_id)?;
        let mut q = Sql::new("SELECT number, tx_index FROM evm_txs WHERE chain_id = ");
        q.bind(chain).push(" AND hash = ").bind(hash.0.to_vec());
        let position = self
            .fetch_optional(q, |r| {
                Ok(TxCursor {
                    height: r.u64("number")?,
                    index: r.u32("tx_index")?,
                })
            })
            .await?;
        let Some(at) = position else {
            return Ok(Vec::new());
        };
        let tail = (select, alias, tail);
        self.rows_at((chain_id, at, None), tail, MAX_ROWS_PER_TX, decode)
            .await
    }

    /// The rows `select` (ending in `WHERE`) finds for the transaction at `at`, at most
    /// `limit`: `select` continues as in [`Store::rows_of_tx`], then, with a `party`, keeps the
    /// rows it sent or received (`{alias}from_addr` or `{alias}to_addr`), then `tail`.
    pub(super) async fn rows_at<T: Send + 'static>(
        &self,
        (chain_id, at, party): (u64, TxCursor, Option<Address>),
        (select, alias, tail): (&str, &str, &str),
        limit: usize,
        decode: fn(&dyn Row) -> Result<T>,
    ) -> Result<Vec<T>> {
        let chain = int("chain id", chain_id)?;
        let (number, index) = (int("block number", at.height)?, i64::from(at.index));
        let mut q = Sql::new(select);
        q.push(&format!(" {alias}chain_id = "))
            .bind(chain)
            .push(&format!(" AND {alias}number = "))
            .bind(number)
            .push(&format!(" AND {alias}tx_index = "))
            .bind(index);
        if let Some(party) = party {
            q.push(&format!(" AND ({alias}from_addr = "))
                .bind(party.0.to_vec())
                .push(&format!(" OR {alias}to_addr = "))
                .bind(party.0.to_vec())
                .push(")");
        }
        q.push(tail).limit(i64::try_from(limit).unwrap_or(i64::MAX));
        self.fetch(q, decode).await
    }
}

impl Store {
    /// One page of transfers, newest first. `keys` opens the page-key subquery (`… FROM
    /// (SELECT number, log_index, batch_index FROM … WHERE chain_id = … AND …`); the block
    /// range, the cursor, the order and the joins that complete each row follow. `leading`
    /// names the columns the subquery fixes by equality before `number` in the index it should
    /// walk (`token DESC, `): ordering by them changes nothing but tells PostgreSQL which
    /// index gives the order.
    async fn transfer_page(
        &self,
        chain: i64,
        (mut q, leading): (Sql, &str),
        (start_block, end_block): (Option<u64>, Option<u64>),
        page: &PageRequest<EventCursor>,
    ) -> Result<Page<TransferRecord, EventCursor>> {
        let limit = page.checked_limit()?;
        push_range_after(
            &mut q,
            (start_block, end_block),
            page.after,
            "number, log_index, batch_index",
        )?;
        q.push(&format!(
            " ORDER BY {leading}number DESC, log_index DESC, batch_index DESC"
        ))
        .limit(limit + 1)
        .push(") k JOIN evm_transfers tr ON tr.chain_id = ")
        .bind(chain)
        .push(
            " AND tr.number = k.number AND tr.log_index = k.log_index \
                 AND tr.batch_index = k.batch_index",
        )
        .push(TRANSFER_JOINS)
        // Sort by the page keys, not by `tr`'s primary key: ordering by `tr` tempts SQLite
        // into scanning every transfer of the chain in key order to skip the sort.
        .push(" ORDER BY k.number DESC, k.log_index DESC, k.batch_index DESC");
        let items = self.fetch(q, decode_transfer).await?;
        Ok(Page::from_rows(items, limit, |t| EventCursor {
            height: t.block_number,
            index: t.transfer.log_index,
            sub: t.transfer.batch_index,
        }))
    }
}

impl EvmReader for Store {
    async fn list_evm_chains(&self) -> Result<Vec<EvmChainRecord>> {
        let q = Sql::new("SELECT * FROM evm_chains ORDER BY chain_id");
        self.fetch(q, decode_chain).await
    }

    async fn list_address_evm_chains(&self, address: Address) -> Result<Vec<EvmChainRecord>> {
        // One seek per chain: the activity table is keyed by chain, then address.
        let mut q = Sql::new(
            "SELECT * FROM evm_chains WHERE EXISTS (SELECT 1 FROM evm_address_activity a \
             WHERE a.chain_id = evm_chains.chain_id AND a.address = ",
        );
        q.bind(address.0.to_vec()).push(") ORDER BY chain_id");
        self.fetch(q, decode_chain).await
    }

    async fn find_evm_chain(&self, chain: ChainRef) -> Result<Option<EvmChainRecord>> {
        let mut q = Sql::new("SELECT * FROM evm_chains WHERE ");
        match chain {
            ChainRef::Evm(id) => q.push("chain_id = ").bind(int("chain id", id)?),
            ChainRef::Blockchain(id) => q.push("blockchain_id = ").bind(id.0.to_vec()),
        };
        self.fetch_optional(q, decode_chain).await
    }

    async fn find_evm_block(&self, chain_id: u64, number: u64) -> Result<Option<EvmBlockRecord>> {
        let mut q = Sql::new("SELECT * FROM evm_blocks WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?)
            .push(" AND number = ")
            .bind(int("block number", number)?);
        self.fetch_optional(q, decode_block).await
    }

    async fn find_evm_block_by_hash(
        &self,
        chain_id: u64,
        hash: B256,
    ) -> Result<Option<EvmBlockRecord>> {
        let mut q = Sql::new("SELECT * FROM evm_blocks WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?)
            .push(" AND hash = ")
            .bind(hash.0.to_vec());
        self.fetch_optional(q, decode_block).await
    }

    async fn list_evm_blocks(
        &self,
        chain_id: u64,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<EvmBlockRecord, HeightCursor>> {
        self.list_evm_blocks_between(chain_id, None, None, page)
            .await
    }

    async fn list_evm_blocks_between(
        &self,
        chain_id: u64,
        start_ts: Option<u64>,
        end_ts: Option<u64>,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<EvmBlockRecord, HeightCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT * FROM evm_blocks WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?);
        if let Some(t) = start_ts {
            q.push(" AND timestamp >= ").bind(int("start time", t)?);
        }
        if let Some(t) = end_ts {
            q.push(" AND timestamp <= ").bind(int("end time", t)?);
        }
        if let Some(c) = page.after {
            q.push(" AND number < ").bind(int("cursor", c.height)?);
        }
        q.push(" ORDER BY number DESC").limit(limit + 1);
        let items = self.fetch(q, decode_block).await?;
        Ok(Page::from_rows(items, limit, |b| HeightCursor {
            height: b.block.number,
        }))
    }

    async fn find_evm_tx(&self, chain_id: u64, hash: B256) -> Result<Option<EvmTxRecord>> {
        let mut q = Sql::new(&format!("{TX_SELECT} WHERE t.chain_id = "));
        q.bind(int("chain id", chain_id)?)
            .push(" AND t.hash = ")
            .bind(hash.0.to_vec());
        self.fetch_optional(q, decode_tx).await
    }

    async fn list_evm_block_txs(&self, chain_id: u64, number: u64) -> Result<Vec<EvmTxRecord>> {
        let mut q = Sql::new(&format!("{TX_SELECT} WHERE t.chain_id = "));
        q.bind(int("chain id", chain_id)?)
            .push(" AND t.number = ")
            .bind(int("block number", number)?)
            .push(" ORDER BY t.tx_index")
            .limit(MAX_ROWS_PER_TX as i64);
        self.fetch(q, decode_tx).await
    }

    async fn list_evm_txs(
        &self,
        filter: &EvmTxFilter,
        page: &PageRequest<TxCursor>,
    ) -> Result<Page<EvmTxRecord, TxCursor>> {
        let limit = page.checked_limit()?;
        let chain = int("chain id", filter.chain_id)?;
        let (order, after) = (filter.order.sql(), filter.order.after_op());
        if filter.address.is_some() && filter.success.is_some() {
            return Err(StoreError::UnsupportedFilter(
                "a transaction status with an address (no index holds both)",
            ));
        }
        // Range and keyset conditions on the source of page keys (alias `x`).
        let conditions = |q: &mut Sql| -> Result<()> {
            if let Some(b) = filter.start_block {
                q.push(" AND x.number >= ").bind(int("start block", b)?);
            }
            if let Some(b) = filter.end_block {
                q.push(" AND x.number < ").bind(int("end block", b)?);
            }
            if let Some(c) = page.after {
                q.push(&format!(" AND (x.number, x.tx_index) {after} ("))
                    .bind(int("cursor", c.height)?)
                    .push(", ")
                    .bind(i64::from(c.index))
                    .push(")");
            }
            Ok(())
        };
        let q = match filter.address {
            Some(address) => {
                let parties = match filter.parties {
                    TxParties::Direct => "evm_tx_addresses",
                    TxParties::Any => "evm_address_activity",
                };
                let mut q = Sql::new(&format!(
                    "SELECT t.*, b.hash AS block_hash FROM (SELECT x.number, x.tx_index \
                     FROM {parties} x WHERE x.chain_id = "
                ));
                q.bind(chain)
                    .push(" AND x.address = ")
                    .bind(address.0.to_vec());
                conditions(&mut q)?;
                q.push(&format!(" ORDER BY x.number {order}, x.tx_index {order}"))
                    .limit(limit + 1)
                    .push(") k JOIN evm_txs t ON t.chain_id = ")
                    .bind(chain)
                    .push(
                        " AND t.number = k.number AND t.tx_index = k.tx_index \
                         JOIN evm_blocks b ON b.chain_id = t.chain_id AND b.number = t.number",
                    );
                q.push(&format!(" ORDER BY k.number {order}, k.tx_index {order}"));
                q
            }
            None => {
                let mut q = Sql::new(
                    "SELECT x.*, b.hash AS block_hash FROM evm_txs x \
                     JOIN evm_blocks b ON b.chain_id = x.chain_id AND b.number = x.number \
                     WHERE x.chain_id = ",
                );
                q.bind(chain);
                conditions(&mut q)?;
                // A literal, not a bound value: SQLite uses the partial index of failed
                // transactions only when the query holds the index's own condition.
                match filter.success {
                    Some(true) => q.push(" AND x.success = 1"),
                    Some(false) => q.push(" AND x.success = 0"),
                    None => &mut q,
                };
                q.push(&format!(" ORDER BY x.number {order}, x.tx_index {order}"))
                    .limit(limit + 1);
                q
            }
        };
        let items = self.fetch(q, decode_tx).await?;
        Ok(Page::from_rows(items, limit, |t| TxCursor {
            height: t.block_number,
            index: t.tx.index,
        }))
    }

    async fn list_evm_tx_effects(
        &self,
        chain_id: u64,
        positions: &[TxCursor],
        party: Address,
    ) -> Result<Vec<EvmTxEffects>> {
        self.evm_tx_effects(chain_id, positions, party).await
    }

    async fn list_address_internal_txs(
        &self,
        filter: &AddressFilter,
        page: &PageRequest<EventCursor>,
    ) -> Result<Page<InternalTxRecord, EventCursor>> {
        self.address_internal_txs(filter, page).await
    }

    async fn find_last_evm_block_before(
        &self,
        chain_id: u64,
        timestamp: u64,
    ) -> Result<Option<u64>> {
        self.last_evm_block_before(chain_id, timestamp).await
    }

    async fn list_evm_tx_logs(&self, chain_id: u64, tx_hash: B256) -> Result<Vec<EvmLog>> {
        self.rows_of_tx(
            chain_id,
            &tx_hash,
            ("SELECT * FROM evm_logs WHERE", "", " ORDER BY log_index"),
            |r| {
                Ok(EvmLog {
                    tx_index: r.u32("tx_index")?,
                    log_index: r.u32("log_index")?,
                    address: r.address("address")?,
                    topics: r.b256s("topics")?,
                    data: r.bytes("data")?,
                })
            },
        )
        .await
    }

    async fn list_evm_internal_txs(
        &self,
        chain_id: u64,
        tx_hash: B256,
    ) -> Result<Vec<EvmInternalTx>> {
        self.rows_of_tx(
            chain_id,
            &tx_hash,
            (
                "SELECT * FROM evm_internal_txs WHERE",
                "",
                " ORDER BY trace_index",
            ),
            decode_internal,
        )
        .await
    }

    async fn list_evm_tx_transfers(
        &self,
        chain_id: u64,
        tx_hash: B256,
    ) -> Result<Vec<TransferRecord>> {
        let select = format!("{TRANSFER_SELECT} FROM evm_transfers tr {TRANSFER_JOINS} WHERE");
        self.rows_of_tx(
            chain_id,
            &tx_hash,
            (&select, "tr.", " ORDER BY tr.log_index, tr.batch_index"),
            decode_transfer,
        )
        .await
    }

    async fn list_transfers(
        &self,
        filter: &TransferFilter,
        page: &PageRequest<EventCursor>,
    ) -> Result<Page<TransferRecord, EventCursor>> {
        let chain = int("chain id", filter.chain_id)?;
        let mut keys = Sql::new(&format!(
            "{TRANSFER_SELECT} FROM (SELECT number, log_index, batch_index FROM evm_transfer_addresses \
             WHERE chain_id = "
        ));
        keys.bind(chain)
            .push(" AND address = ")
            .bind(filter.address.0.to_vec())
            .push(" AND standard = ")
            .bind(filter.standard.code());
        let range = (filter.start_block, filter.end_block);
        self.transfer_page(chain, (keys, ""), range, page).await
    }

    async fn list_token_transfers(
        &self,
        filter: &AddressFilter,
        page: &PageRequest<EventCursor>,
    ) -> Result<Page<TransferRecord, EventCursor>> {
        let chain = int("chain id", filter.chain_id)?;
        let mut keys = Sql::new(&format!(
            "{TRANSFER_SELECT} FROM (SELECT number, log_index, batch_index FROM evm_transfers \
             WHERE chain_id = "
        ));
        keys.bind(chain)
            .push(" AND token = ")
            .bind(filter.address.0.to_vec());
        let range = (filter.start_block, filter.end_block);
        self.transfer_page(chain, (keys, "token DESC, "), range, page)
            .await
    }

    async fn find_token(&self, chain_id: u64, address: Address) -> Result<Option<Token>> {
        let mut q = Sql::new(&format!(
            "SELECT {TOKEN_COLUMNS} FROM evm_tokens tk WHERE tk.chain_id = "
        ));
        q.bind(int("chain id", chain_id)?)
            .push(" AND tk.address = ")
            .bind(address.0.to_vec());
        Ok(self.fetch_optional(q, decode_token_join).await?.flatten())
    }

    async fn find_tokens(&self, chain_id: u64, addresses: &[Address]) -> Result<Vec<Token>> {
        let select = format!("SELECT {TOKEN_COLUMNS} FROM evm_tokens tk WHERE tk.chain_id = ");
        let Some(q) = address_lookup(&select, chain_id, "tk.address", addresses)? else {
            return Ok(Vec::new());
        };
        let tokens = self.fetch(q, decode_token_join).await?;
        Ok(tokens.into_iter().flatten().collect())
    }

    async fn list_balance_mismatches(
        &self,
        chain_id: u64,
        tokens: &[Address],
    ) -> Result<Vec<BalanceMismatch>> {
        super::mismatches::list(self, chain_id, tokens).await
    }

    async fn find_nft_metadata(
        &self,
        chain_id: u64,
        token: Address,
        token_id: U256,
    ) -> Result<Option<NftMetadata>> {
        let mut q = Sql::new(&format!(
            "SELECT {METADATA_COLUMNS} FROM evm_nft_metadata m WHERE m.chain_id = "
        ));
        q.bind(int("chain id", chain_id)?)
            .push(" AND m.token = ")
            .bind(token.0.to_vec())
            .push(" AND m.token_id = ")
            .bind(u256(&token_id));
        Ok(self.fetch_optional(q, decode_metadata).await?.flatten())
    }

    async fn list_nft_tokens(
        &self,
        chain_id: u64,
        token: Address,
        page: &PageRequest<CollectibleCursor>,
    ) -> Result<Page<NftMetadata, CollectibleCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new(&format!(
            "SELECT {METADATA_COLUMNS} FROM evm_nft_metadata m WHERE m.chain_id = "
        ));
        q.bind(int("chain id", chain_id)?)
            .push(" AND m.token = ")
            .bind(token.0.to_vec());
        if let Some(c) = page.after {
            q.push(" AND m.token_id > ").bind(u256(&c.token_id));
        }
        q.push(" ORDER BY m.token_id").limit(limit + 1);
        let items: Vec<NftMetadata> = self
            .fetch(q, decode_metadata)
            .await?
            .into_iter()
            .flatten()
            .collect();
        Ok(Page::from_rows(items, limit, |m| CollectibleCursor {
            contract: m.token,
            token_id: m.token_id,
        }))
    }

    async fn list_pending_nft_metadata(
        &self,
        chain_id: u64,
        queue: MetadataQueue,
        after: Option<(Address, U256)>,
        limit: u32,
    ) -> Result<Vec<NftMetadata>> {
        let mut q = Sql::new(&format!(
            "SELECT {METADATA_COLUMNS} FROM evm_nft_metadata m WHERE m.chain_id = "
        ));
        // The status is a literal from a fixed set, so that SQLite matches the partial index.
        q.bind(int("chain id", chain_id)?)
            .push(&format!(" AND m.index_status = '{}'", queue.status()));
        if let Some((token, id)) = after {
            q.push(" AND (m.token, m.token_id) > (")
                .bind(token.0.to_vec())
                .push(", ")
                .bind(u256(&id))
                .push(")");
        }
        q.push(" ORDER BY m.token, m.token_id")
            .limit(i64::from(limit));
        Ok(self
            .fetch(q, decode_metadata)
            .await?
            .into_iter()
            .flatten()
            .collect())
    }

    async fn list_collectibles(
        &self,
        chain_id: u64,
        owner: Address,
        standard: Option<TokenStandard>,
        contract: Option<Address>,
        page: &PageRequest<CollectibleCursor>,
    ) -> Result<Page<CollectibleRecord, CollectibleCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new(&format!(
            "SELECT c.*, {TOKEN_COLUMNS}, {METADATA_COLUMNS} FROM evm_collectibles c \
             LEFT JOIN evm_tokens tk ON tk.chain_id = c.chain_id AND tk.address = c.token \
             LEFT JOIN evm_nft_metadata m ON m.chain_id = c.chain_id AND m.token = c.token \
             AND m.token_id = c.token_id WHERE c.chain_id = "
        ));
        q.bind(int("chain id", chain_id)?)
            .push(" AND c.owner = ")
            .bind(owner.0.to_vec());
        if let Some(s) = standard {
            q.push(" AND c.standard = ").bind(s.code());
        }
        if let Some(c) = contract {
            q.push(" AND c.token = ").bind(c.0.to_vec());
        }
        if let Some(c) = page.after {
            q.push(" AND (c.token, c.token_id) > (")
                .bind(c.contract.0.to_vec())
                .push(", ")
                .bind(u256(&c.token_id))
                .push(")");
        }
        q.push(" ORDER BY c.token, c.token_id").limit(limit + 1);
        let items = self.fetch(q, decode_collectible).await?;
        Ok(Page::from_rows(items, limit, |c| CollectibleCursor {
            contract: c.token,
            token_id: c.token_id,
        }))
    }

    async fn list_erc20_balances(
        &self,
        chain_id: u64,
        owner: Address,
        contracts: &[Address],
        page: &PageRequest<TokenCursor>,
    ) -> Result<Page<Erc20BalanceRecord, TokenCursor>> {
        let limit = page.checked_limit()?;
        if contracts.len() > MAX_LISTED_CONTRACTS {
            return Err(StoreError::OutOfRange {
                field: "number of contracts",
                value: contracts.len().to_string(),
            });
        }
        let mut q = Sql::new(&format!(
            "SELECT b.*, {TOKEN_COLUMNS} FROM evm_erc20_balances b \
             LEFT JOIN evm_tokens tk ON tk.chain_id = b.chain_id AND tk.address = b.token \
             WHERE b.chain_id = "
        ));
        q.bind(int("chain id", chain_id)?)
            .push(" AND b.owner = ")
            .bind(owner.0.to_vec());
        if !contracts.is_empty() {
            q.push(" AND b.token IN (")
                .bind_list(contracts.iter().map(|c| c.0.to_vec()))
                .push(")");
        }
        if let Some(c) = page.after {
            q.push(" AND b.token > ").bind(c.token.0.to_vec());
        }
        q.push(" ORDER BY b.token").limit(limit + 1);
        let items = self.fetch(q, decode_erc20_balance).await?;
        Ok(Page::from_rows(items, limit, |b| TokenCursor {
            token: b.token,
        }))
    }

    async fn list_erc20_balances_at(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        contracts: &[Address],
        page: &PageRequest<TokenCursor>,
    ) -> Result<Page<Erc20BalanceRecord, TokenCursor>> {
        self.erc20_balances_at(chain_id, owner, block, contracts, page)
            .await
    }

    async fn list_erc1155_balances_at(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        contract: Option<Address>,
        page: &PageRequest<CollectibleCursor>,
    ) -> Result<Page<CollectibleRecord, CollectibleCursor>> {
        self.erc1155_balances_at(chain_id, owner, block, contract, page)
            .await
    }

    async fn list_contracts(
        &self,
        chain_id: u64,
        deployer: Address,
        page: &PageRequest<DeploymentCursor>,
    ) -> Result<Page<ContractRecord, DeploymentCursor>> {
        self.contracts_of(chain_id, deployer, page).await
    }

    async fn find_contract(
        &self,
        chain_id: u64,
        address: Address,
    ) -> Result<Option<ContractRecord>> {
        self.contract(chain_id, address).await
    }

    async fn find_contract_deployment(
        &self,
        chain_id: u64,
        address: Address,
    ) -> Result<Option<ContractDeployment>> {
        let mut q = Sql::new("SELECT * FROM evm_contracts WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?)
            .push(" AND address = ")
            .bind(address.0.to_vec());
        self.fetch_optional(q, decode_deployment).await
    }
}
