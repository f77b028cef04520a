//! Warp messages. (placeholder until the warp branch lands)
pub mod messages;
