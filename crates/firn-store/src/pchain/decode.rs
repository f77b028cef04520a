//! Row → record decoding for the P-Chain reads.

use crate::codec::RowExt;
use crate::error::{Result, StoreError};
use crate::row::Row;
use crate::rows::pchain::{
    BlockchainRecord, L1Validator, L1ValidatorRecord, NewBlockchain, NewReward, NewStaker, Owner,
    PBlock, PBlockRecord, PTxCore, PUtxo, PUtxoRecord, ProposerDetails, RewardRecord, RewardType,
    StakerRecord, SubnetConversion, SubnetRecord, UtxoConsumption, UtxoType,
};

pub(super) fn decode_block(r: &dyn Row) -> Result<PBlockRecord> {
    let proposer = match r.opt_node_id("proposer_node_id")? {
        Some(node_id) => Some(ProposerDetails {
            id: r.id("proposer_id")?,
            parent_id: r.id("proposer_parent_id")?,
            node_id,
            pchain_height: r.u64("proposer_pchain_height")?,
            timestamp: r.u64("proposer_timestamp")?,
        }),
        None => None,
    };
    Ok(PBlockRecord {
        block: PBlock {
            height: r.u64("height")?,
            hash: r.id("hash")?,
            parent_hash: r.id("parent_hash")?,
            timestamp: r.u64("timestamp")?,
            block_type: r.text("block_type")?,
            size_bytes: r.u64("size_bytes")?,
            proposer,
            l1_validators_accrued_fees: r.opt_bits("l1_validators_accrued_fees")?,
            active_l1_validators: r.opt_bits("active_l1_validators")?,
            current_supply: r.opt_bits("current_supply")?,
        },
        tx_hashes: r.hashes("tx_hashes")?,
    })
}

pub(super) fn decode_core(r: &dyn Row) -> Result<PTxCore> {
    let details = serde_json::from_str(&r.text("details")?).map_err(|e| StoreError::Corrupt {
        column: "details",
        reason: e.to_string(),
    })?;
    Ok(PTxCore {
        tx_hash: r.id("tx_hash")?,
        tx_type: r.text("tx_type")?,
        memo: r.bytes("memo")?,
        source_chain: r.opt_id("source_chain")?,
        destination_chain: r.opt_id("destination_chain")?,
        value: r.amounts("value")?,
        amount_burned: r.amounts("amount_burned")?,
        amount_staked: r.amounts("amount_staked")?,
        amount_l1_balance_burned: r.amounts("amount_l1_balance_burned")?,
        node_id: r.opt_node_id("node_id")?,
        subnet_id: r.opt_id("subnet_id")?,
        start_ts: r.opt_u64("start_ts")?,
        end_ts: r.opt_u64("end_ts")?,
        ends_staker: r.opt_id("ends_staker")?,
        details,
    })
}

pub(crate) fn decode_utxo(r: &dyn Row) -> Result<PUtxoRecord> {
    let consumed = match r.opt_id("consuming_tx_hash")? {
        Some(tx_hash) => Some(UtxoConsumption {
            tx_hash,
            height: r.u64("consuming_height")?,
            timestamp: r.u64("consuming_timestamp")?,
        }),
        None => None,
    };
    Ok(PUtxoRecord {
        utxo: PUtxo {
            utxo_id: r.id("utxo_id")?,
            tx_hash: r.id("tx_hash")?,
            output_index: r.u32("output_index")?,
            asset_id: r.id("asset_id")?,
            amount: r.bits("amount")?,
            addresses: r.short_ids("addresses")?,
            threshold: r.u32("threshold")?,
            locktime: r.bits("locktime")?,
            stakeable_locktime: r.opt_bits("stakeable_locktime")?,
            staked: r.bool("staked")?,
            utxo_type: UtxoType::decode("utxo_type", &r.text("utxo_type")?)?,
            reward_type: r
                .opt_text("reward_type")?
                .map(|t| RewardType::decode("reward_type", &t))
                .transpose()?,
            created_on_chain: r.id("created_on_chain")?,
            consumed_on_chain: r.id("consumed_on_chain")?,
            start_ts: r.opt_bits("start_ts")?,
            end_ts: r.opt_bits("end_ts")?,
            bytes: r.bytes("bytes")?,
        },
        height: r.u64("height")?,
        timestamp: r.u64("timestamp")?,
        consumed,
    })
}

pub(super) fn decode_staker(r: &dyn Row) -> Result<StakerRecord> {
    let ended_by = match r.opt_id("end_tx_hash")? {
        Some(tx_hash) => Some(UtxoConsumption {
            tx_hash,
            height: r.u64("end_height")?,
            timestamp: r.u64("end_timestamp")?,
        }),
        None => None,
    };
    Ok(StakerRecord {
        tx_hash: r.id("tx_hash")?,
        tx_type: r.text("tx_type")?,
        height: r.u64("height")?,
        tx_index: r.u32("tx_index")?,
        staker: NewStaker {
            node_id: r.node_id("node_id")?,
            subnet_id: r.id("subnet_id")?,
            start_ts: r.u64("start_ts")?,
            end_ts: r.u64("end_ts")?,
            weight: r.bits("weight")?,
            is_delegator: r.bool("is_delegator")?,
            delegation_fee: r.u32("delegation_fee")?,
            reward_addresses: r.short_ids("reward_addresses")?,
            estimated_reward: r.opt_bits("estimated_reward")?,
        },
        ended_by,
        gross_reward: r.bits("gross_reward")?,
        net_reward: r.bits("net_reward")?,
    })
}

pub(super) fn decode_reward(r: &dyn Row) -> Result<RewardRecord> {
    Ok(RewardRecord {
        reward: NewReward {
            utxo_id: r.id("utxo_id")?,
            output_index: r.u32("output_index")?,
            reward_type: RewardType::decode("reward_type", &r.text("reward_type")?)?,
            staking_tx_hash: r.id("staking_tx_hash")?,
            asset_id: r.id("asset_id")?,
            amount: r.bits("amount")?,
            addresses: r.short_ids("addresses")?,
        },
        reward_tx_hash: r.id("reward_tx_hash")?,
        height: r.u64("height")?,
        tx_index: r.u32("tx_index")?,
        seq: r.u32("seq")?,
        node_id: r.node_id("node_id")?,
        amount_staked: r.bits("amount_staked")?,
        start_ts: r.u64("start_ts")?,
        end_ts: r.u64("end_ts")?,
    })
}

pub(super) fn decode_subnet(r: &dyn Row) -> Result<SubnetRecord> {
    let conversion = match r.opt_id("l1_conversion_id")? {
        Some(conversion_id) => Some(SubnetConversion {
            conversion_id,
            manager_chain: r.id("l1_manager_chain")?,
            manager_address: r.bytes("l1_manager_address")?,
            height: r.u64("l1_converted_at")?,
        }),
        None => None,
    };
    Ok(SubnetRecord {
        subnet_id: r.id("subnet_id")?,
        height: r.u64("height")?,
        tx_hash: r.id("tx_hash")?,
        timestamp: r.u64("timestamp")?,
        owner: Owner {
            locktime: r.bits("owner_locktime")?,
            threshold: r.u32("owner_threshold")?,
            addresses: r.short_ids("owner_addresses")?,
        },
        conversion,
    })
}

pub(super) fn decode_blockchain(r: &dyn Row) -> Result<BlockchainRecord> {
    Ok(BlockchainRecord {
        chain: NewBlockchain {
            blockchain_id: r.id("blockchain_id")?,
            subnet_id: r.id("subnet_id")?,
            name: r.text("name")?,
            vm_id: r.id("vm_id")?,
            genesis: r.bytes("genesis")?,
            evm_chain_id: r.opt_u64("evm_chain_id")?,
        },
        height: r.u64("height")?,
        tx_hash: r.id("tx_hash")?,
        timestamp: r.u64("timestamp")?,
    })
}

pub(super) fn decode_l1(r: &dyn Row) -> Result<L1ValidatorRecord> {
    Ok(L1ValidatorRecord {
        validator: L1Validator {
            validation_id: r.id("validation_id")?,
            subnet_id: r.id("subnet_id")?,
            node_id: r.node_id("node_id")?,
            weight: r.bits("weight")?,
            balance: r.bits("balance")?,
            bls_public_key: r.bytes("bls_public_key")?,
            active: r.bool("active")?,
            remaining_balance_owner: Owner {
                locktime: 0,
                threshold: r.u32("remaining_owner_threshold")?,
                addresses: r.short_ids("remaining_owner_addresses")?,
            },
            deactivation_owner: Owner {
                locktime: 0,
                threshold: r.u32("deactivation_owner_threshold")?,
                addresses: r.short_ids("deactivation_owner_addresses")?,
            },
        },
        created_height: r.u64("created_height")?,
        created_tx_hash: r.id("created_tx_hash")?,
        created_timestamp: r.u64("created_timestamp")?,
        updated_height: r.u64("updated_height")?,
    })
}
