//! Warp messages.
