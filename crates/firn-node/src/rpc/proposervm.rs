//! `proposervm.*` on `/ext/bc/<chain>/proposervm` for the P-, X- and C-Chains and every chain
//! the P-Chain created: the P-Chain height a next block would reference (the current one, as
//! a node in sync proposes it) and the ACP-181 epoch, which is all zero while Granite is not
//! active ([`super::upgrades`]).

use std::sync::Arc;

use firn_rpc::methods::NoParams;
use firn_rpc::methods::platform::HeightReply;
use firn_rpc::methods::proposervm::{EpochReply, GetCurrentEpoch, GetProposedHeight};
use firn_rpc::server::Endpoint;
use firn_rpc::{AvaServer, AvaService};

use super::{MethodError, Node};

type N = Arc<Node>;

/// The endpoint for `chain` (`P`, `X`, `C` or a created chain's ID), or `None` (404) for a
/// chain firn does not run.
pub fn endpoint(node: &N, chain: &str) -> Option<Arc<dyn Endpoint>> {
    node.chain_alias(chain)?;
    let server = AvaServer::new(node.clone()).service(
        AvaService::new("proposervm")
            .handle::<GetProposedHeight, _, _, _>(get_proposed_height)
            .handle::<GetCurrentEpoch, _, _, _>(get_current_epoch),
    );
    Some(Arc::new(server))
}

/// `proposervm.getProposedHeight` → `{height}`: the P-Chain's height now.
async fn get_proposed_height(node: N, _: NoParams) -> Result<HeightReply, MethodError> {
    Ok(HeightReply {
        height: node.chain.height(),
    })
}

/// `proposervm.getCurrentEpoch` → `{number, startTime, pChainHeight}`, zero before Granite.
async fn get_current_epoch(_: N, _: NoParams) -> Result<EpochReply, MethodError> {
    Ok(EpochReply::default())
}
