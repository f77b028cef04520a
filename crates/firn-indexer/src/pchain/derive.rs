//! From a decoded block to the rows the store commits: each tx's UTXOs, amounts, addresses,
//! stakers, rewards, subnets, chains and L1 validators.

use std::collections::BTreeSet;

use firn_core::codec::{Encode, Writer};
use firn_core::ids::{Id, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_core::pchain::block::BlockKind;
use firn_core::pchain::fx::{Output, OutputOwners, TransferableOutput};
use firn_core::pchain::{Block, Tx, UnsignedTx};
use firn_store::Store;
use firn_store::rows::pchain::{
    AssetAmount, BlockchainInfo, NewBlockchain, Owner, PBlock, PChainBlockRows, PTx, PTxCore,
    PTxDetails, PUtxo, SubnetChange, UtxoType,
};

use super::fees::FeeTracker;
use super::known::Known;
use super::source::{FetchedBlock, PChainSource};
use super::staking::{stake_outputs, staking_window};
use crate::error::Result;
use crate::sums::{Sums, add, burned};

/// Turns blocks into rows, remembering what later blocks need.
#[derive(Debug)]
pub(crate) struct Deriver {
    pub source: PChainSource,
    pub store: Store,
    pub known: Known,
    /// Network ID, learned from the first tx that carries it.
    pub network_id: Option<u32>,
    /// The L1 validator fee ledger, when replayed.
    pub fees: Option<FeeTracker>,
}

/// One tx being derived, with its block's context.
pub(crate) struct TxCtx<'a> {
    pub tx: &'a Tx,
    pub id: Id,
    pub timestamp: u64,
    /// For a proposal block's tx: whether the next block committed it.
    pub committed: Option<bool>,
}

impl Deriver {
    /// The rows of `fetched`; `next` is the following block, which decides a proposal.
    pub async fn block(
        &mut self,
        fetched: &FetchedBlock,
        next: Option<&Block>,
    ) -> Result<PChainBlockRows> {
        let block = &fetched.block;
        let timestamp = block.time().unwrap_or(0);
        let proposal_outcome = match block.kind() {
            BlockKind::BanffProposal { .. } | BlockKind::ApricotProposal { .. } => next.map(|n| {
                matches!(
                    n.kind(),
                    BlockKind::BanffCommit { .. } | BlockKind::ApricotCommit
                )
            }),
            _ => None,
        };
        let proposal_tx = match block.kind() {
            BlockKind::BanffProposal { tx, .. } | BlockKind::ApricotProposal { tx } => {
                Some(tx.id())
            }
            _ => None,
        };
        // AvalancheGo charges the fees up to a block's time before its txs.
        if let (Some(fees), Some(time)) = (&mut self.fees, block.time()) {
            fees.advance_to(time);
        }
        let mut txs = Vec::new();
        for tx in block.txs() {
            let id = tx.id();
            let ctx = TxCtx {
                tx,
                id,
                timestamp,
                committed: if Some(id) == proposal_tx {
                    proposal_outcome
                } else {
                    None
                },
            };
            txs.push(self.tx(&ctx).await?);
        }
        let totals = self.fees.as_ref().and_then(FeeTracker::totals);
        let (accrued, active) = (totals.map(|t| t.0), totals.map(|t| t.1));
        Ok(PChainBlockRows {
            block: PBlock {
                height: block.height(),
                hash: block.id(),
                parent_hash: block.parent_id(),
                timestamp,
                block_type: block.type_name().to_owned(),
                size_bytes: fetched.size,
                proposer: None,
                l1_validators_accrued_fees: accrued,
                active_l1_validators: active,
                current_supply: None,
            },
            txs,
            l1_fees: None,
        })
    }

    async fn tx(&mut self, ctx: &TxCtx<'_>) -> Result<PTx> {
        let unsigned = ctx.tx.unsigned();
        let mut out = empty_tx(ctx.id, unsigned.type_name());
        let mut addresses: BTreeSet<ShortId> = BTreeSet::new();
        let mut inputs = Sums::new();
        let mut outputs = Sums::new();

        if let Some(base) = unsigned.base() {
            self.network_id.get_or_insert(base.network_id);
            out.core.memo = base.memo.0.clone();
            for input in &base.inputs {
                self.consume(input, &mut out, &mut addresses).await?;
                add(&mut inputs, input.asset_id, input.input.amount());
            }
            for (i, o) in base.outputs.iter().enumerate() {
                let u = self.utxo(ctx, i as u32, o, UtxoKind::Transfer(P_CHAIN_ID));
                add(&mut outputs, o.asset_id, o.output.amount());
                addresses.extend(u.addresses.iter().copied());
                out.emitted.push(u);
            }
        }
        let n_outputs = unsigned.base().map_or(0, |b| b.outputs.len()) as u32;
        let mut staked = Sums::new();
        if let Some(stake) = stake_outputs(unsigned) {
            let (start, end) = staking_window(unsigned, ctx.timestamp);
            for (i, o) in stake.iter().enumerate() {
                let u = self.utxo(ctx, n_outputs + i as u32, o, UtxoKind::Stake(start, end));
                add(&mut staked, o.asset_id, o.output.amount());
                addresses.extend(u.addresses.iter().copied());
                out.emitted.push(u);
            }
        }
        match unsigned {
            UnsignedTx::Import(t) => {
                out.core.source_chain = Some(t.source_chain);
                for input in &t.imported_inputs {
                    add(&mut inputs, input.asset_id, input.input.amount());
                    out.consumed.push(input.utxo_id());
                    out.imported.push(PUtxo {
                        utxo_id: input.utxo_id(),
                        tx_hash: input.tx_id,
                        output_index: input.output_index,
                        asset_id: input.asset_id,
                        amount: input.input.amount(),
                        addresses: Vec::new(),
                        threshold: 0,
                        locktime: 0,
                        stakeable_locktime: None,
                        staked: false,
                        utxo_type: UtxoType::Transfer,
                        reward_type: None,
                        created_on_chain: t.source_chain,
                        consumed_on_chain: P_CHAIN_ID,
                        start_ts: None,
                        end_ts: None,
                        bytes: Vec::new(),
                    });
                }
            }
            UnsignedTx::Export(t) => {
                out.core.destination_chain = Some(t.destination_chain);
                for (i, o) in t.exported_outputs.iter().enumerate() {
                    let index = n_outputs + i as u32;
                    let u = self.utxo(ctx, index, o, UtxoKind::Transfer(t.destination_chain));
                    add(&mut outputs, o.asset_id, o.output.amount());
                    addresses.extend(u.addresses.iter().copied());
                    out.emitted.push(u);
                }
            }
            _ => {}
        }
        for u in &out.emitted {
            self.known.created(u, true);
        }

        self.staking(ctx, &mut out, &mut addresses).await?;
        self.subnets(ctx, &mut out, &mut addresses);
        let l1_burned = super::l1::derive(self, ctx, &mut out, &mut addresses).await?;

        out.core.value = amounts(&outputs);
        out.core.amount_staked = amounts(&staked);
        out.core.amount_l1_balance_burned = amounts(&l1_burned);
        let burned = burned(&inputs, &[&outputs, &staked, &l1_burned]);
        out.core.amount_burned = amounts(&burned);
        out.addresses = addresses.into_iter().collect();
        Ok(out)
    }

    /// Records that `input`'s UTXO is spent by this tx.
    async fn consume(
        &mut self,
        input: &firn_core::pchain::fx::TransferableInput,
        out: &mut PTx,
        addresses: &mut BTreeSet<ShortId>,
    ) -> Result<()> {
        let spent = self.known.spend(input, &self.source, &self.store).await?;
        addresses.extend(spent.owners.iter().copied());
        out.consumed.push(input.utxo_id());
        if !spent.stored {
            // A refund already spent when its tx was indexed: stored now, as it is spent.
            out.imported.push(PUtxo {
                utxo_id: input.utxo_id(),
                tx_hash: input.tx_id,
                output_index: input.output_index,
                asset_id: input.asset_id,
                amount: spent.amount.unwrap_or_else(|| input.input.amount()),
                addresses: spent.owners,
                threshold: 1,
                locktime: 0,
                stakeable_locktime: None,
                staked: false,
                utxo_type: UtxoType::Transfer,
                reward_type: None,
                created_on_chain: P_CHAIN_ID,
                consumed_on_chain: P_CHAIN_ID,
                start_ts: None,
                end_ts: None,
                bytes: Vec::new(),
            });
        }
        Ok(())
    }

    /// A UTXO this tx creates at `index`.
    fn utxo(&self, ctx: &TxCtx<'_>, index: u32, o: &TransferableOutput, kind: UtxoKind) -> PUtxo {
        let owners = &o.output.transfer().owners;
        let (staked, start_ts, end_ts, consumed_on) = match kind {
            UtxoKind::Transfer(chain) => (false, None, None, chain),
            UtxoKind::Stake(s, e) => (true, Some(s), Some(e), P_CHAIN_ID),
        };
        PUtxo {
            utxo_id: ctx.id.prefix(u64::from(index)),
            tx_hash: ctx.id,
            output_index: index,
            asset_id: o.asset_id,
            amount: o.output.amount(),
            addresses: owners.addresses.clone(),
            threshold: owners.threshold,
            locktime: owners.locktime,
            stakeable_locktime: match &o.output {
                Output::Locked(l) => Some(l.locktime),
                Output::Transfer(_) => None,
            },
            staked,
            utxo_type: if staked {
                UtxoType::Stake
            } else {
                UtxoType::Transfer
            },
            reward_type: None,
            created_on_chain: P_CHAIN_ID,
            consumed_on_chain: consumed_on,
            start_ts,
            end_ts,
            bytes: utxo_bytes(ctx.id, index, o.asset_id, &o.output),
        }
    }

    /// Subnets created or changed, and chains created.
    fn subnets(&mut self, ctx: &TxCtx<'_>, out: &mut PTx, addresses: &mut BTreeSet<ShortId>) {
        match ctx.tx.unsigned() {
            UnsignedTx::CreateSubnet(t) => {
                let owner = owner_row(&t.owner.0);
                out.core.subnet_id = Some(ctx.id);
                out.core.details.subnet_owner = Some(owner.clone());
                addresses.extend(t.owner.0.addresses.iter().copied());
                out.subnet = Some(SubnetChange::Created {
                    subnet_id: ctx.id,
                    owner,
                });
            }
            UnsignedTx::TransferSubnetOwnership(t) => {
                let owner = owner_row(&t.new_owner.0);
                out.core.subnet_id = Some(t.subnet_id);
                out.core.details.subnet_owner = Some(owner.clone());
                out.subnet = Some(SubnetChange::OwnerChanged {
                    subnet_id: t.subnet_id,
                    owner,
                });
            }
            UnsignedTx::CreateChain(t) => {
                out.core.subnet_id = Some(t.subnet_id);
                out.core.details.blockchain_info = Some(BlockchainInfo {
                    chain_name: t.chain_name.clone(),
                    vm_id: t.vm_id,
                });
                out.blockchain = Some(NewBlockchain {
                    blockchain_id: ctx.id,
                    subnet_id: t.subnet_id,
                    name: t.chain_name.clone(),
                    vm_id: t.vm_id,
                    genesis: t.genesis_data.0.clone(),
                    evm_chain_id: evm_chain_id(&t.genesis_data.0),
                });
            }
            UnsignedTx::TransformSubnet(t) => out.core.subnet_id = Some(t.subnet_id),
            _ => {}
        }
    }
}

enum UtxoKind {
    /// Spendable, consumed on this chain.
    Transfer(Id),
    /// Staked from start to end.
    Stake(u64, u64),
}

/// A UTXO's bytes as the node serves them: codec version, tx ID, index, asset, output.
pub(crate) fn utxo_bytes(tx_id: Id, index: u32, asset_id: Id, output: &Output) -> Vec<u8> {
    let mut w = Writer::new();
    w.version();
    w.raw(tx_id.as_bytes());
    w.u32(index);
    w.raw(asset_id.as_bytes());
    output.encode(&mut w);
    w.into_bytes()
}

pub(crate) fn owner_row(o: &OutputOwners) -> Owner {
    Owner {
        locktime: o.locktime,
        threshold: o.threshold,
        addresses: o.addresses.clone(),
    }
}

pub(crate) fn amounts(sums: &Sums) -> Vec<AssetAmount> {
    sums.iter()
        .filter(|(_, v)| **v > 0)
        .map(|(asset_id, v)| AssetAmount {
            asset_id: *asset_id,
            amount: u64::try_from(*v).unwrap_or(u64::MAX),
        })
        .collect()
}

pub(crate) fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `config.chainId` of an EVM genesis (JSON), if the genesis is one and its chain ID fits
/// the store (a signed 64-bit integer). Chain data is anyone's: a genesis that is not JSON, or
/// whose chain ID is larger, is a chain without an EVM chain ID, never a failed commit.
fn evm_chain_id(genesis: &[u8]) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_slice(genesis).ok()?;
    let id = v.get("config")?.get("chainId")?;
    match id.as_u64().filter(|id| i64::try_from(*id).is_ok()) {
        Some(id) => Some(id),
        None => {
            tracing::warn!(chain_id = %id, "genesis chain ID does not fit a signed 64-bit integer; storing the chain without it");
            None
        }
    }
}

fn empty_tx(id: Id, tx_type: &str) -> PTx {
    PTx {
        core: PTxCore {
            tx_hash: id,
            tx_type: tx_type.to_owned(),
            memo: Vec::new(),
            source_chain: None,
            destination_chain: None,
            value: Vec::new(),
            amount_burned: Vec::new(),
            amount_staked: Vec::new(),
            amount_l1_balance_burned: Vec::new(),
            node_id: None,
            subnet_id: None,
            start_ts: None,
            end_ts: None,
            ends_staker: None,
            details: PTxDetails::default(),
        },
        addresses: Vec::new(),
        consumed: Vec::new(),
        imported: Vec::new(),
        emitted: Vec::new(),
        staker: None,
        rewards: Vec::new(),
        l1_validation_ids: Vec::new(),
        l1_validators: Vec::new(),
        subnet: None,
        blockchain: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evm_chain_id_comes_from_the_genesis_config() {
        assert_eq!(
            evm_chain_id(br#"{"config":{"chainId":99999}}"#),
            Some(99999)
        );
        assert_eq!(evm_chain_id(b"not json"), None);
        assert_eq!(
            evm_chain_id(br#"{"config":{"chainId":9223372036854775807}}"#),
            Some(i64::MAX as u64)
        );
        for huge in [
            "9223372036854775808",
            "18446744073709551616",
            "-1",
            "1e30",
            "\"1\"",
        ] {
            let genesis = format!(r#"{{"config":{{"chainId":{huge}}}}}"#);
            assert_eq!(evm_chain_id(genesis.as_bytes()), None, "{huge}");
        }
    }
}
