// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

/// What a `ConvertSubnetToL1Tx` committed to; its sha256 over AvalancheGo's codec bytes is the
/// conversion ID the P-Chain signs.
struct ConversionData {
    bytes32 subnetID;
    bytes32 validatorManagerBlockchainID;
    address validatorManagerAddress;
    InitialValidator[] initialValidators;
}

/// One validator of a conversion, in the tx's order.
struct InitialValidator {
    bytes nodeID;
    bytes blsPublicKey;
    uint64 weight;
}

/// Who may claim a validator's remaining balance, or disable it, on the P-Chain.
struct PChainOwner {
    uint32 threshold;
    address[] addresses;
}

/// The P-Chain's L1 messages (ACP-77) in AvalancheGo's codec: a u16 codec version (0), a u32
/// type ID, then the fields big-endian, byte slices and lists prefixed by a u32 length.
library ValidatorMessages {
    uint16 internal constant CODEC_VERSION = 0;
    uint32 internal constant SUBNET_TO_L1_CONVERSION = 0;
    uint32 internal constant REGISTER_L1_VALIDATOR = 1;
    uint32 internal constant L1_VALIDATOR_REGISTRATION = 2;
    uint32 internal constant L1_VALIDATOR_WEIGHT = 3;

    uint256 internal constant NODE_ID_LENGTH = 20;
    uint256 internal constant BLS_PUBLIC_KEY_LENGTH = 48;

    error InvalidMessageLength(uint256 length, uint256 expected);
    error InvalidCodecVersion(uint16 version);
    error InvalidMessageType(uint32 typeID, uint32 expected);
    error InvalidBLSPublicKey(uint256 length);
    error InvalidNodeID(bytes nodeID);
    error InvalidRegistrationFlag(uint8 value);

    /// The conversion ID of `data`: sha256 of its codec bytes (no type ID).
    function conversionID(ConversionData memory data) internal pure returns (bytes32) {
        bytes memory out = abi.encodePacked(
            CODEC_VERSION,
            data.subnetID,
            data.validatorManagerBlockchainID,
            uint32(20),
            data.validatorManagerAddress,
            uint32(data.initialValidators.length)
        );
        for (uint256 i; i < data.initialValidators.length; ++i) {
            InitialValidator memory v = data.initialValidators[i];
            checkNodeID(v.nodeID);
            if (v.blsPublicKey.length != BLS_PUBLIC_KEY_LENGTH) revert InvalidBLSPublicKey(v.blsPublicKey.length);
            out = abi.encodePacked(out, uint32(NODE_ID_LENGTH), v.nodeID, v.blsPublicKey, v.weight);
        }
        return sha256(out);
    }

    /// `RegisterL1ValidatorMessage`; its sha256 is the validation ID.
    function packRegisterL1Validator(
        bytes32 subnetID,
        bytes memory nodeID,
        bytes memory blsPublicKey,
        uint64 expiry,
        PChainOwner memory remainingBalanceOwner,
        PChainOwner memory disableOwner,
        uint64 weight
    ) internal pure returns (bytes memory) {
        checkNodeID(nodeID);
        if (blsPublicKey.length != BLS_PUBLIC_KEY_LENGTH) revert InvalidBLSPublicKey(blsPublicKey.length);
        bytes memory head = abi.encodePacked(
            CODEC_VERSION, REGISTER_L1_VALIDATOR, subnetID, uint32(NODE_ID_LENGTH), nodeID, blsPublicKey, expiry
        );
        return abi.encodePacked(head, packOwner(remainingBalanceOwner), packOwner(disableOwner), weight);
    }

    /// `L1ValidatorWeightMessage`: sent by the manager to change a weight (0 removes), and
    /// signed back by the P-Chain once it has.
    function packL1ValidatorWeight(bytes32 validationID, uint64 nonce, uint64 weight)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encodePacked(CODEC_VERSION, L1_VALIDATOR_WEIGHT, validationID, nonce, weight);
    }

    function unpackSubnetToL1Conversion(bytes memory message) internal pure returns (bytes32) {
        checkHeader(message, 38, SUBNET_TO_L1_CONVERSION);
        return word(message, 6);
    }

    function unpackL1ValidatorRegistration(bytes memory message) internal pure returns (bytes32, bool) {
        checkHeader(message, 39, L1_VALIDATOR_REGISTRATION);
        uint8 flag = uint8(message[38]);
        if (flag > 1) revert InvalidRegistrationFlag(flag);
        return (word(message, 6), flag == 1);
    }

    function unpackL1ValidatorWeight(bytes memory message) internal pure returns (bytes32, uint64, uint64) {
        checkHeader(message, 54, L1_VALIDATOR_WEIGHT);
        return (word(message, 6), uint64(bytes8(word(message, 38))), uint64(bytes8(word(message, 46))));
    }

    function packOwner(PChainOwner memory owner) private pure returns (bytes memory out) {
        out = abi.encodePacked(owner.threshold, uint32(owner.addresses.length));
        for (uint256 i; i < owner.addresses.length; ++i) {
            out = abi.encodePacked(out, owner.addresses[i]);
        }
    }

    function checkNodeID(bytes memory nodeID) internal pure {
        if (nodeID.length != NODE_ID_LENGTH || bytes20(nodeID) == bytes20(0)) revert InvalidNodeID(nodeID);
    }

    function checkHeader(bytes memory message, uint256 length, uint32 typeID) private pure {
        if (message.length != length) revert InvalidMessageLength(message.length, length);
        uint16 version = uint16(bytes2(word(message, 0)));
        if (version != CODEC_VERSION) revert InvalidCodecVersion(version);
        uint32 found = uint32(bytes4(word(message, 2)));
        if (found != typeID) revert InvalidMessageType(found, typeID);
    }

    /// The 32 bytes of `data` from `offset` (zero past its end; callers check lengths first).
    function word(bytes memory data, uint256 offset) private pure returns (bytes32 out) {
        assembly {
            out := mload(add(add(data, 32), offset))
        }
    }
}
