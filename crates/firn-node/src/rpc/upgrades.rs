//! The devnet's network upgrades (`upgrade.Config`), shared by `info.upgrades`, `info.peers`
//! and `proposervm.getCurrentEpoch`: AvalancheGo's local-network times (active from its
//! initial time) up to Fortuna, what firn's chains run; Granite (ACP-181 epochs, ACP-226 block
//! delays) and Helicon are unscheduled, as the EVM chains' configs leave them.

use firn_core::calendar::rfc3339;
use firn_core::ids::Id;
use firn_rpc::methods::info::UpgradesReply;

/// AvalancheGo's `InitiallyActiveTime`, 2020-12-05T05:00:00Z.
pub const INITIALLY_ACTIVE: u64 = 1_607_144_400;
/// AvalancheGo's `UnscheduledActivationTime`, 9999-12-01T00:00:00Z.
pub const UNSCHEDULED: u64 = 253_399_622_400;
/// Granite's activation: unscheduled on the devnet.
pub const GRANITE: u64 = UNSCHEDULED;
/// The local network's ACP-181 epoch length, 30 s, in nanoseconds.
const EPOCH_NANOS: i64 = 30_000_000_000;

/// The devnet's upgrade times.
pub fn devnet() -> UpgradesReply {
    let active = rfc3339(INITIALLY_ACTIVE);
    UpgradesReply {
        apricot_phase1_time: active.clone(),
        apricot_phase2_time: active.clone(),
        apricot_phase3_time: active.clone(),
        apricot_phase4_time: active.clone(),
        apricot_phase4_min_p_chain_height: 0,
        apricot_phase5_time: active.clone(),
        apricot_phase_pre6_time: active.clone(),
        apricot_phase6_time: active.clone(),
        apricot_phase_post6_time: active.clone(),
        banff_time: active.clone(),
        cortina_time: active.clone(),
        cortina_x_chain_stop_vertex_id: Id::ZERO,
        durango_time: active.clone(),
        etna_time: active.clone(),
        fortuna_time: active,
        granite_time: rfc3339(GRANITE),
        granite_epoch_duration: EPOCH_NANOS,
        helicon_time: rfc3339(UNSCHEDULED),
    }
}
