// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

import {IWarpMessenger, WarpMessage} from "./IWarpMessenger.sol";

/// One version of the Teleporter protocol and the messenger that speaks it.
struct ProtocolRegistryEntry {
    uint256 version;
    address protocolAddress;
}

/// firn's Teleporter registry, with the ABI, events and revert strings of ICM's
/// `TeleporterRegistry`: apps ask it for the messenger of a version, or the latest one.
/// Versions are added only by an off-chain Warp message of the chain's own validators (source
/// address zero, which no contract can send from), addressed to this registry. The devnet
/// places it in each chain's genesis with version 1 (the canonical messenger) in its storage,
/// so the blockchain ID is read from the precompile rather than fixed by a constructor.
contract FirnTeleporterRegistry {
    /// The source address of an off-chain message: no account can send from it.
    address public constant VALIDATORS_SOURCE_ADDRESS = address(0);
    IWarpMessenger public constant WARP_MESSENGER =
        IWarpMessenger(0x0200000000000000000000000000000000000005);
    /// How far past the latest version a new one may jump.
    uint256 public constant MAX_VERSION_INCREMENT = 500;

    /// Slot 0; 0 until a version is added.
    uint256 public latestVersion;
    /// Slot 1.
    mapping(uint256 version => address protocolAddress) private _versionToAddress;
    /// Slot 2: the highest version an address was registered under.
    mapping(address protocolAddress => uint256 version) private _addressToVersion;

    event AddProtocolVersion(uint256 indexed version, address indexed protocolAddress);
    event LatestVersionUpdated(uint256 indexed oldVersion, uint256 indexed newVersion);

    constructor(ProtocolRegistryEntry[] memory initialEntries) {
        for (uint256 i; i < initialEntries.length; ++i) {
            _addToRegistry(initialEntries[i]);
        }
    }

    /// The chain this registry serves.
    function blockchainID() public view returns (bytes32) {
        return WARP_MESSENGER.getBlockchainID();
    }

    /// Adds the version carried by the off-chain Warp message at `messageIndex` of this tx's
    /// predicates: `abi.encode(ProtocolRegistryEntry, address registry)`.
    function addProtocolVersion(uint32 messageIndex) external {
        (WarpMessage memory message, bool valid) = WARP_MESSENGER.getVerifiedWarpMessage(messageIndex);
        require(valid, "TeleporterRegistry: invalid warp message");
        require(message.sourceChainID == blockchainID(), "TeleporterRegistry: invalid source chain ID");
        require(
            message.originSenderAddress == VALIDATORS_SOURCE_ADDRESS,
            "TeleporterRegistry: invalid origin sender address"
        );
        (ProtocolRegistryEntry memory entry, address destination) =
            abi.decode(message.payload, (ProtocolRegistryEntry, address));
        require(destination == address(this), "TeleporterRegistry: invalid destination address");
        _addToRegistry(entry);
    }

    function getLatestTeleporter() external view returns (address) {
        return getAddressFromVersion(latestVersion);
    }

    function getTeleporterFromVersion(uint256 version) external view returns (address) {
        return getAddressFromVersion(version);
    }

    function getAddressFromVersion(uint256 version) public view returns (address) {
        require(version != 0, "TeleporterRegistry: zero version");
        address found = _versionToAddress[version];
        require(found != address(0), "TeleporterRegistry: version not found");
        return found;
    }

    function getVersionFromAddress(address protocolAddress) public view returns (uint256) {
        require(protocolAddress != address(0), "TeleporterRegistry: zero protocol address");
        uint256 version = _addressToVersion[protocolAddress];
        require(version != 0, "TeleporterRegistry: protocol address not found");
        return version;
    }

    function _addToRegistry(ProtocolRegistryEntry memory entry) private {
        require(entry.version != 0, "TeleporterRegistry: zero version");
        require(_versionToAddress[entry.version] == address(0), "TeleporterRegistry: version already exists");
        require(entry.protocolAddress != address(0), "TeleporterRegistry: zero protocol address");
        uint256 previous = latestVersion;
        require(entry.version <= previous + MAX_VERSION_INCREMENT, "TeleporterRegistry: version increment too high");

        _versionToAddress[entry.version] = entry.protocolAddress;
        // An address may come back under a newer version (a rollback); it answers the newest.
        if (entry.version > _addressToVersion[entry.protocolAddress]) {
            _addressToVersion[entry.protocolAddress] = entry.version;
        }
        emit AddProtocolVersion(entry.version, entry.protocolAddress);
        if (entry.version > previous) {
            latestVersion = entry.version;
            emit LatestVersionUpdated(previous, entry.version);
        }
    }
}
