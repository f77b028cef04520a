// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

/// A verified Warp message as the precompile returns it: an `AddressedCall`'s source chain,
/// source address (zero for the P-Chain's messages, which have none) and payload.
struct WarpMessage {
    bytes32 sourceChainID;
    address originSenderAddress;
    bytes payload;
}

/// The Warp precompile at `0x0200…0005` (subnet-EVM and coreth).
interface IWarpMessenger {
    function getBlockchainID() external view returns (bytes32);
    function sendWarpMessage(bytes calldata payload) external returns (bytes32);
    function getVerifiedWarpMessage(uint32 index) external view returns (WarpMessage memory, bool);
}
