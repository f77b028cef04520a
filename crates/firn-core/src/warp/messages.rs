//! placeholder
use crate::ids::ShortId;
/// placeholder
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct PChainOwner {
    pub threshold: u32,
    pub addresses: Vec<ShortId>,
}
crate::codec_struct!(PChainOwner { threshold: u32, addresses: Vec<ShortId> });
