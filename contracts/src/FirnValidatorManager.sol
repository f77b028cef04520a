// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

import {IWarpMessenger, WarpMessage} from "./IWarpMessenger.sol";
import {ConversionData, PChainOwner, ValidatorMessages} from "./ValidatorMessages.sol";

/// A validation's life in the manager.
enum ValidatorStatus {
    Unknown,
    PendingAdded,
    Active,
    PendingRemoved,
    Completed,
    Invalidated
}

/// What the manager knows of one validation.
/// A churn period, as ICM's `getChurnTracker` returns it.
struct ValidatorChurnPeriod {
    uint256 startTime;
    uint64 initialWeight;
    uint64 totalWeight;
    uint64 churnAmount;
}

struct Validator {
    ValidatorStatus status;
    bytes nodeID;
    uint64 startingWeight;
    uint64 sentNonce;
    uint64 receivedNonce;
    uint64 weight;
    uint64 startTime;
    uint64 endTime;
}

/// firn's proof-of-authority validator manager for an L1 (ACP-99), with the ABI and events of
/// ICM's `ValidatorManager`, so that tools written for it drive this one. The devnet's L1 genesis
/// places it at the address its conversion names, with the L1's owner key in slot 0.
///
/// Every change is two-sided, as ACP-77 has it:
/// - `initiate…` (the owner) records the change and sends the P-Chain's message through the
///   Warp precompile; the L1's validators sign it, and a P-Chain tx carries it;
/// - `complete…` (anyone) takes the P-Chain's signed answer, delivered as a Warp predicate, and
///   finishes the change.
///
/// The P-Chain's messages come from chain ID zero with no source address, and are verified by
/// the precompile against this L1's own validators.
///
/// As ICM's, it bounds churn: within a churn period, the weight added, removed or changed may
/// not exceed `maximumChurnPercentage` of the total weight when the period began. Both settings
/// are in slot 6 of the genesis storage (the period in its low 8 bytes, the percentage in the
/// next byte).
contract FirnValidatorManager {
    IWarpMessenger public constant WARP_MESSENGER = IWarpMessenger(0x0200000000000000000000000000000000000005);
    bytes32 public constant P_CHAIN_BLOCKCHAIN_ID = bytes32(0);
    /// How long the P-Chain accepts a registration message (its window is 24 hours).
    uint64 public constant REGISTRATION_EXPIRY_LENGTH = 1 days;

    /// Slot 0, set in the genesis.
    address public owner;
    bytes32 private _subnetID;
    bool private _initialized;
    uint64 private _totalWeight;
    mapping(bytes32 validationID => Validator) private _validators;
    mapping(bytes nodeID => bytes32 validationID) private _nodeValidations;
    /// Registration messages not yet acknowledged, for resending.
    mapping(bytes32 validationID => bytes message) private _registrationMessages;
    /// Slot 6, set in the genesis.
    uint64 private _churnPeriodSeconds;
    uint8 private _maximumChurnPercentage;
    /// The current churn period (its total weight is `_totalWeight`).
    uint256 private _churnStartTime;
    uint64 private _churnInitialWeight;
    uint64 private _churnAmount;

    event RegisteredInitialValidator(bytes32 indexed validationID, bytes20 indexed nodeID, uint64 weight);
    event InitiatedValidatorRegistration(
        bytes32 indexed validationID,
        bytes20 indexed nodeID,
        bytes32 registrationMessageID,
        uint64 registrationExpiry,
        uint64 weight
    );
    event CompletedValidatorRegistration(bytes32 indexed validationID, uint64 weight);
    event InitiatedValidatorRemoval(
        bytes32 indexed validationID, bytes32 validatorWeightMessageID, uint64 weight, uint64 endTime
    );
    event CompletedValidatorRemoval(bytes32 indexed validationID);
    event InitiatedValidatorWeightUpdate(
        bytes32 indexed validationID, uint64 nonce, bytes32 weightUpdateMessageID, uint64 weight
    );
    event CompletedValidatorWeightUpdate(bytes32 indexed validationID, uint64 nonce, uint64 weight);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error OwnableUnauthorizedAccount(address account);
    error InvalidInitializationStatus();
    error InvalidValidatorManagerBlockchainID(bytes32 blockchainID);
    error InvalidValidatorManagerAddress(address validatorManagerAddress);
    error InvalidConversionID(bytes32 expected, bytes32 actual);
    error InvalidWarpMessage();
    error InvalidWarpSourceChainID(bytes32 sourceChainID);
    error InvalidWarpOriginSenderAddress(address senderAddress);
    error InvalidValidationID(bytes32 validationID);
    error InvalidValidatorStatus(ValidatorStatus status);
    error InvalidNonce(uint64 nonce);
    error InvalidWeight(uint64 weight);
    error InvalidTotalWeight(uint64 weight);
    error InvalidPChainOwnerThreshold(uint256 threshold, uint256 addressesLength);
    error PChainOwnerAddressesNotSorted();
    error NodeAlreadyRegistered(bytes nodeID);
    error UnexpectedRegistrationStatus(bool validRegistration);
    error MaxChurnRateExceeded(uint64 churnAmount);

    modifier onlyOwner() {
        if (msg.sender != owner) revert OwnableUnauthorizedAccount(msg.sender);
        _;
    }

    modifier initialized() {
        if (!_initialized) revert InvalidInitializationStatus();
        _;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// Takes the conversion's validators, once, proven by the P-Chain's
    /// `SubnetToL1ConversionMessage` at `messageIndex`.
    function initializeValidatorSet(ConversionData calldata conversionData, uint32 messageIndex) external {
        if (_initialized) revert InvalidInitializationStatus();
        bytes32 chain = WARP_MESSENGER.getBlockchainID();
        if (conversionData.validatorManagerBlockchainID != chain) {
            revert InvalidValidatorManagerBlockchainID(conversionData.validatorManagerBlockchainID);
        }
        if (conversionData.validatorManagerAddress != address(this)) {
            revert InvalidValidatorManagerAddress(conversionData.validatorManagerAddress);
        }
        bytes32 signed = ValidatorMessages.unpackSubnetToL1Conversion(pChainMessage(messageIndex));
        bytes32 computed = ValidatorMessages.conversionID(conversionData);
        if (signed != computed) revert InvalidConversionID(signed, computed);

        uint64 total;
        for (uint32 i; i < conversionData.initialValidators.length; ++i) {
            bytes memory nodeID = conversionData.initialValidators[i].nodeID;
            uint64 weight = conversionData.initialValidators[i].weight;
            if (_nodeValidations[nodeID] != bytes32(0)) revert NodeAlreadyRegistered(nodeID);
            bytes32 validationID = sha256(abi.encodePacked(conversionData.subnetID, i));
            _nodeValidations[nodeID] = validationID;
            _validators[validationID] = Validator({
                status: ValidatorStatus.Active,
                nodeID: nodeID,
                startingWeight: weight,
                sentNonce: 0,
                receivedNonce: 0,
                weight: weight,
                startTime: uint64(block.timestamp),
                endTime: 0
            });
            total += weight;
            emit RegisteredInitialValidator(validationID, bytes20(nodeID), weight);
        }
        _subnetID = conversionData.subnetID;
        _totalWeight = total;
        if (uint256(total) * _maximumChurnPercentage < 100) revert InvalidTotalWeight(total);
        _initialized = true;
    }

    /// Starts registering a validator: sends the `RegisterL1ValidatorMessage` a
    /// `RegisterL1ValidatorTx` must carry, valid for a day.
    function initiateValidatorRegistration(
        bytes memory nodeID,
        bytes memory blsPublicKey,
        PChainOwner memory remainingBalanceOwner,
        PChainOwner memory disableOwner,
        uint64 weight
    ) external onlyOwner initialized returns (bytes32 validationID) {
        if (weight == 0) revert InvalidWeight(weight);
        checkOwner(remainingBalanceOwner);
        checkOwner(disableOwner);
        if (_nodeValidations[nodeID] != bytes32(0)) revert NodeAlreadyRegistered(nodeID);
        checkAndUpdateChurn(weight, 0);
        uint64 expiry = uint64(block.timestamp) + REGISTRATION_EXPIRY_LENGTH;
        bytes memory message = ValidatorMessages.packRegisterL1Validator(
            _subnetID, nodeID, blsPublicKey, expiry, remainingBalanceOwner, disableOwner, weight
        );
        validationID = sha256(message);
        bytes32 messageID = WARP_MESSENGER.sendWarpMessage(message);
        _nodeValidations[nodeID] = validationID;
        _registrationMessages[validationID] = message;
        _validators[validationID] = Validator({
            status: ValidatorStatus.PendingAdded,
            nodeID: nodeID,
            startingWeight: weight,
            sentNonce: 0,
            receivedNonce: 0,
            weight: weight,
            startTime: 0,
            endTime: 0
        });
        emit InitiatedValidatorRegistration(validationID, bytes20(nodeID), messageID, expiry, weight);
    }

    /// Sends a pending registration's message again (to sign it anew, say).
    function resendRegisterValidatorMessage(bytes32 validationID) external returns (bytes32) {
        bytes memory message = _registrationMessages[validationID];
        if (message.length == 0) revert InvalidValidationID(validationID);
        return WARP_MESSENGER.sendWarpMessage(message);
    }

    /// Finishes a registration the P-Chain acknowledged (`L1ValidatorRegistrationMessage`, true).
    function completeValidatorRegistration(uint32 messageIndex) external returns (bytes32 validationID) {
        bool registered;
        (validationID, registered) = ValidatorMessages.unpackL1ValidatorRegistration(pChainMessage(messageIndex));
        if (!registered) revert UnexpectedRegistrationStatus(registered);
        Validator storage validator = _validators[validationID];
        if (validator.status != ValidatorStatus.PendingAdded) revert InvalidValidatorStatus(validator.status);
        validator.status = ValidatorStatus.Active;
        validator.startTime = uint64(block.timestamp);
        delete _registrationMessages[validationID];
        emit CompletedValidatorRegistration(validationID, validator.weight);
    }

    /// Starts removing an active validator: its weight leaves the total now, and the
    /// `L1ValidatorWeightMessage` with weight 0 is sent for a `SetL1ValidatorWeightTx`.
    function initiateValidatorRemoval(bytes32 validationID) external onlyOwner {
        Validator storage validator = _validators[validationID];
        if (validator.status != ValidatorStatus.Active) revert InvalidValidatorStatus(validator.status);
        uint64 weight = validator.weight;
        checkAndUpdateChurn(0, weight);
        validator.status = ValidatorStatus.PendingRemoved;
        validator.endTime = uint64(block.timestamp);
        validator.weight = 0;
        uint64 nonce = ++validator.sentNonce;
        bytes32 messageID =
            WARP_MESSENGER.sendWarpMessage(ValidatorMessages.packL1ValidatorWeight(validationID, nonce, 0));
        emit InitiatedValidatorRemoval(validationID, messageID, weight, validator.endTime);
    }

    /// Sends a pending removal's message again.
    function resendValidatorRemovalMessage(bytes32 validationID) external returns (bytes32) {
        Validator storage validator = _validators[validationID];
        if (validator.status != ValidatorStatus.PendingRemoved) revert InvalidValidatorStatus(validator.status);
        return WARP_MESSENGER.sendWarpMessage(
            ValidatorMessages.packL1ValidatorWeight(validationID, validator.sentNonce, 0)
        );
    }

    /// Finishes a removal, or drops a registration that expired unregistered, on the P-Chain's
    /// word (`L1ValidatorRegistrationMessage`, false).
    function completeValidatorRemoval(uint32 messageIndex) external returns (bytes32 validationID) {
        bool registered;
        (validationID, registered) = ValidatorMessages.unpackL1ValidatorRegistration(pChainMessage(messageIndex));
        if (registered) revert UnexpectedRegistrationStatus(registered);
        Validator storage validator = _validators[validationID];
        if (validator.status == ValidatorStatus.PendingRemoved) {
            validator.status = ValidatorStatus.Completed;
        } else if (validator.status == ValidatorStatus.PendingAdded) {
            // Its weight leaves the total, but was never churn the P-Chain saw.
            validator.status = ValidatorStatus.Invalidated;
            _totalWeight -= validator.weight;
            validator.weight = 0;
        } else {
            revert InvalidValidatorStatus(validator.status);
        }
        delete _nodeValidations[validator.nodeID];
        delete _registrationMessages[validationID];
        emit CompletedValidatorRemoval(validationID);
    }

    /// Starts changing an active validator's weight; the total changes now.
    function initiateValidatorWeightUpdate(bytes32 validationID, uint64 newWeight)
        external
        onlyOwner
        returns (uint64 nonce, bytes32 messageID)
    {
        if (newWeight == 0) revert InvalidWeight(newWeight);
        Validator storage validator = _validators[validationID];
        if (validator.status != ValidatorStatus.Active) revert InvalidValidatorStatus(validator.status);
        checkAndUpdateChurn(newWeight, validator.weight);
        validator.weight = newWeight;
        nonce = ++validator.sentNonce;
        messageID =
            WARP_MESSENGER.sendWarpMessage(ValidatorMessages.packL1ValidatorWeight(validationID, nonce, newWeight));
        emit InitiatedValidatorWeightUpdate(validationID, nonce, messageID, newWeight);
    }

    /// Takes the P-Chain's acknowledgement of a weight change (`L1ValidatorWeightMessage`).
    function completeValidatorWeightUpdate(uint32 messageIndex)
        external
        returns (bytes32 validationID, uint64 nonce)
    {
        uint64 weight;
        (validationID, nonce, weight) = ValidatorMessages.unpackL1ValidatorWeight(pChainMessage(messageIndex));
        Validator storage validator = _validators[validationID];
        if (validator.status != ValidatorStatus.Active) revert InvalidValidatorStatus(validator.status);
        if (nonce > validator.sentNonce || nonce <= validator.receivedNonce) revert InvalidNonce(nonce);
        validator.receivedNonce = nonce;
        emit CompletedValidatorWeightUpdate(validationID, nonce, weight);
    }

    function subnetID() external view returns (bytes32) {
        return _subnetID;
    }

    function isValidatorSetInitialized() external view returns (bool) {
        return _initialized;
    }

    function getValidator(bytes32 validationID) external view returns (Validator memory) {
        return _validators[validationID];
    }

    function getNodeValidationID(bytes calldata nodeID) external view returns (bytes32) {
        return _nodeValidations[nodeID];
    }

    /// The weight of every active and pending validator.
    function l1TotalWeight() external view returns (uint64) {
        return _totalWeight;
    }

    function getChurnPeriodSeconds() external view returns (uint64) {
        return _churnPeriodSeconds;
    }

    /// The churn period's length, the percentage allowed, and the current period.
    function getChurnTracker() external view returns (uint64, uint8, ValidatorChurnPeriod memory) {
        return (
            _churnPeriodSeconds,
            _maximumChurnPercentage,
            ValidatorChurnPeriod(_churnStartTime, _churnInitialWeight, _totalWeight, _churnAmount)
        );
    }

    /// Counts a validator's weight going from `oldWeight` to `newWeight` as churn of the current
    /// period (a new one if it is over) and moves the total; reverts past the limit, or if the
    /// total would be too small for a change of 1 to stay within it.
    function checkAndUpdateChurn(uint64 newWeight, uint64 oldWeight) private {
        uint64 change = newWeight > oldWeight ? newWeight - oldWeight : oldWeight - newWeight;
        if (_churnStartTime == 0 || block.timestamp >= _churnStartTime + _churnPeriodSeconds) {
            _churnStartTime = block.timestamp;
            _churnInitialWeight = _totalWeight;
            _churnAmount = change;
        } else {
            _churnAmount += change;
        }
        if (uint256(_maximumChurnPercentage) * _churnInitialWeight < uint256(_churnAmount) * 100) {
            revert MaxChurnRateExceeded(_churnAmount);
        }
        uint64 total = _totalWeight + newWeight - oldWeight;
        if (uint256(total) * _maximumChurnPercentage < 100) revert InvalidTotalWeight(total);
        _totalWeight = total;
    }

    /// The payload of the P-Chain's verified message at `index` in this tx's predicates.
    function pChainMessage(uint32 index) private view returns (bytes memory) {
        (WarpMessage memory message, bool valid) = WARP_MESSENGER.getVerifiedWarpMessage(index);
        if (!valid) revert InvalidWarpMessage();
        if (message.sourceChainID != P_CHAIN_BLOCKCHAIN_ID) revert InvalidWarpSourceChainID(message.sourceChainID);
        if (message.originSenderAddress != address(0)) {
            revert InvalidWarpOriginSenderAddress(message.originSenderAddress);
        }
        return message.payload;
    }

    /// AvalancheGo's `PChainOwner` rules: no more signers needed than there are addresses, some
    /// needed when there are any, addresses sorted and unique.
    function checkOwner(PChainOwner memory pChainOwner) private pure {
        uint256 count = pChainOwner.addresses.length;
        if (pChainOwner.threshold > count || (pChainOwner.threshold == 0 && count != 0)) {
            revert InvalidPChainOwnerThreshold(pChainOwner.threshold, count);
        }
        for (uint256 i = 1; i < count; ++i) {
            if (pChainOwner.addresses[i - 1] >= pChainOwner.addresses[i]) revert PChainOwnerAddressesNotSorted();
        }
    }
}
