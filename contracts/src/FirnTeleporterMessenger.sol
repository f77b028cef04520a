// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

import {IWarpMessenger, WarpMessage} from "./IWarpMessenger.sol";

/// A cross-chain message as Teleporter sends it: the payload of an `AddressedCall` Warp message
/// from the messenger's own address.
struct TeleporterMessageReceipt {
    uint256 receivedMessageNonce;
    address relayerRewardAddress;
}

struct TeleporterFeeInfo {
    address feeTokenAddress;
    uint256 amount;
}

struct TeleporterMessage {
    uint256 messageNonce;
    address originSenderAddress;
    bytes32 destinationBlockchainID;
    address destinationAddress;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    TeleporterMessageReceipt[] receipts;
    bytes message;
}

struct TeleporterMessageInput {
    bytes32 destinationBlockchainID;
    address destinationAddress;
    TeleporterFeeInfo feeInfo;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    bytes message;
}

interface ITeleporterReceiver {
    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external;
}

interface IERC20Like {
    function balanceOf(address owner) external view returns (uint256);
}

/// firn's messenger with the ABI, events, message IDs, receipts, fees and retries of ICM's
/// TeleporterMessenger v1, so that relayers, SDKs and indexers written for Teleporter work with
/// it unchanged. The devnet places it at Teleporter's address on every EVM chain.
///
/// - Sending: one global nonce, incremented before use; a message's ID is
///   `keccak256(abi.encode(messenger, source, destination, nonce))`; up to five receipts of
///   messages received from the destination ride along.
/// - Receiving: the Warp message at the given access-list index must be verified and come from
///   this address on the source chain; the relayer must be allowed; a message is received once.
///   Its execution gets exactly `requiredGasLimit`; a failure is stored for anyone to retry.
/// - Fees: ERC-20 amounts held per message, paid to the relayer a receipt names.
contract FirnTeleporterMessenger {
    IWarpMessenger public constant WARP_MESSENGER = IWarpMessenger(0x0200000000000000000000000000000000000005);

    /// Receipts sent along with each new message, at most.
    uint256 private constant RECEIPTS_PER_MESSAGE = 5;
    uint256 private constant FREE = 1;
    uint256 private constant BUSY = 2;

    struct SentMessageInfo {
        bytes32 messageHash;
        TeleporterFeeInfo feeInfo;
    }

    /// Receipts owed to one source chain, first in first out.
    struct ReceiptQueue {
        uint256 first;
        uint256 next;
        mapping(uint256 => TeleporterMessageReceipt) at;
    }

    event BlockchainIDInitialized(bytes32 indexed blockchainID);
    event SendCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        TeleporterMessage message,
        TeleporterFeeInfo feeInfo
    );
    event AddFeeAmount(bytes32 indexed messageID, TeleporterFeeInfo updatedFeeInfo);
    event MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message);
    event MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID);
    event ReceiveCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed sourceBlockchainID,
        address indexed deliverer,
        address rewardRedeemer,
        TeleporterMessage message
    );
    event ReceiptReceived(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        address indexed relayerRewardAddress,
        TeleporterFeeInfo feeInfo
    );
    event RelayerRewardsRedeemed(address indexed redeemer, address indexed asset, uint256 amount);

    bytes32 public blockchainID;
    uint256 public messageNonce;
    mapping(bytes32 => ReceiptQueue) private receiptQueues;
    mapping(bytes32 => SentMessageInfo) public sentMessageInfo;
    mapping(bytes32 => bytes32) public receivedFailedMessageHashes;
    mapping(bytes32 => uint256) private receivedNonces;
    mapping(bytes32 => address) private rewardAddresses;
    mapping(address => mapping(address => uint256)) private rewards;
    uint256 private sending;
    uint256 private receiving;

    modifier senderNonReentrant() {
        require(sending != BUSY, "ReentrancyGuards: sender reentrancy");
        sending = BUSY;
        _;
        sending = FREE;
    }

    modifier receiverNonReentrant() {
        require(receiving != BUSY, "ReentrancyGuards: receiver reentrancy");
        receiving = BUSY;
        _;
        receiving = FREE;
    }

    function sendCrossChainMessage(TeleporterMessageInput calldata messageInput)
        external
        senderNonReentrant
        returns (bytes32)
    {
        return send(messageInput, takeReceipts(messageInput.destinationBlockchainID));
    }

    function retrySendCrossChainMessage(TeleporterMessage calldata message) external senderNonReentrant {
        bytes32 messageID = calculateMessageID(blockchainID, message.destinationBlockchainID, message.messageNonce);
        SentMessageInfo memory info = sentMessageInfo[messageID];
        require(info.messageHash != bytes32(0), "TeleporterMessenger: message not found");
        bytes memory encoded = abi.encode(message);
        require(keccak256(encoded) == info.messageHash, "TeleporterMessenger: invalid message hash");
        emit SendCrossChainMessage(messageID, message.destinationBlockchainID, message, info.feeInfo);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    function addFeeAmount(bytes32 messageID, address feeTokenAddress, uint256 additionalFeeAmount)
        external
        senderNonReentrant
        receiverNonReentrant
    {
        require(additionalFeeAmount > 0, "TeleporterMessenger: zero additional fee amount");
        require(feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
        SentMessageInfo storage info = sentMessageInfo[messageID];
        require(info.messageHash != bytes32(0), "TeleporterMessenger: message not found");
        require(info.feeInfo.feeTokenAddress == feeTokenAddress, "TeleporterMessenger: invalid fee asset contract address");
        info.feeInfo.amount += pull(feeTokenAddress, additionalFeeAmount);
        emit AddFeeAmount(messageID, info.feeInfo);
    }

    function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress) external receiverNonReentrant {
        (WarpMessage memory warp, bool valid) = WARP_MESSENGER.getVerifiedWarpMessage(messageIndex);
        require(valid, "TeleporterMessenger: invalid warp message");
        require(warp.originSenderAddress == address(this), "TeleporterMessenger: invalid origin sender address");
        TeleporterMessage memory message = abi.decode(warp.payload, (TeleporterMessage));
        bytes32 here = initializeBlockchainID();
        require(message.destinationBlockchainID == here, "TeleporterMessenger: invalid destination chain ID");
        bytes32 messageID = calculateMessageID(warp.sourceChainID, here, message.messageNonce);
        require(receivedNonces[messageID] == 0, "TeleporterMessenger: message already received");
        require(isAllowedRelayer(msg.sender, message.allowedRelayerAddresses), "TeleporterMessenger: unauthorized relayer");
        require(message.messageNonce != 0, "TeleporterMessenger: zero message nonce");
        receivedNonces[messageID] = message.messageNonce;
        if (relayerRewardAddress != address(0)) {
            rewardAddresses[messageID] = relayerRewardAddress;
        }
        for (uint256 i = 0; i < message.receipts.length; i++) {
            settleReceipt(here, warp.sourceChainID, message.receipts[i]);
        }
        ReceiptQueue storage queue = receiptQueues[warp.sourceChainID];
        queue.at[queue.next++] = TeleporterMessageReceipt(message.messageNonce, relayerRewardAddress);
        emit ReceiveCrossChainMessage(messageID, warp.sourceChainID, msg.sender, relayerRewardAddress, message);
        if (message.message.length > 0) {
            execute(messageID, warp.sourceChainID, message);
        }
    }

    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage calldata message)
        external
        receiverNonReentrant
    {
        bytes32 messageID = calculateMessageID(sourceBlockchainID, blockchainID, message.messageNonce);
        bytes32 failed = receivedFailedMessageHashes[messageID];
        require(failed != bytes32(0), "TeleporterMessenger: message not found");
        require(keccak256(abi.encode(message)) == failed, "TeleporterMessenger: invalid message hash");
        require(message.destinationAddress.code.length > 0, "TeleporterMessenger: destination address has no code");
        emit MessageExecuted(messageID, sourceBlockchainID);
        delete receivedFailedMessageHashes[messageID];
        bool ok = call(
            message.destinationAddress,
            gasleft(),
            abi.encodeCall(
                ITeleporterReceiver.receiveTeleporterMessage,
                (sourceBlockchainID, message.originSenderAddress, message.message)
            )
        );
        require(ok, "TeleporterMessenger: retry execution failed");
    }

    function sendSpecifiedReceipts(
        bytes32 sourceBlockchainID,
        bytes32[] calldata messageIDs,
        TeleporterFeeInfo calldata feeInfo,
        address[] calldata allowedRelayerAddresses
    ) external senderNonReentrant returns (bytes32) {
        TeleporterMessageReceipt[] memory receipts = new TeleporterMessageReceipt[](messageIDs.length);
        for (uint256 i = 0; i < messageIDs.length; i++) {
            uint256 nonce = receivedNonces[messageIDs[i]];
            require(nonce != 0, "TeleporterMessenger: receipt not found");
            require(
                messageIDs[i] == calculateMessageID(sourceBlockchainID, blockchainID, nonce),
                "TeleporterMessenger: message ID not from source blockchain"
            );
            receipts[i] = TeleporterMessageReceipt(nonce, rewardAddresses[messageIDs[i]]);
        }
        TeleporterMessageInput memory input = TeleporterMessageInput({
            destinationBlockchainID: sourceBlockchainID,
            destinationAddress: address(0),
            feeInfo: feeInfo,
            requiredGasLimit: 0,
            allowedRelayerAddresses: allowedRelayerAddresses,
            message: new bytes(0)
        });
        return send(input, receipts);
    }

    function redeemRelayerRewards(address feeAsset) external {
        uint256 amount = rewards[msg.sender][feeAsset];
        require(amount > 0, "TeleporterMessenger: no reward to redeem");
        delete rewards[msg.sender][feeAsset];
        emit RelayerRewardsRedeemed(msg.sender, feeAsset, amount);
        (bool ok, bytes memory data) = feeAsset.call(abi.encodeWithSignature("transfer(address,uint256)", msg.sender, amount));
        require(ok && (data.length == 0 || abi.decode(data, (bool))), "SafeERC20: ERC20 operation did not succeed");
    }

    function getMessageHash(bytes32 messageID) external view returns (bytes32) {
        return sentMessageInfo[messageID].messageHash;
    }

    function messageReceived(bytes32 messageID) external view returns (bool) {
        return receivedNonces[messageID] != 0;
    }

    function getRelayerRewardAddress(bytes32 messageID) external view returns (address) {
        require(receivedNonces[messageID] != 0, "TeleporterMessenger: message not received");
        return rewardAddresses[messageID];
    }

    function checkRelayerRewardAmount(address relayer, address feeAsset) external view returns (uint256) {
        return rewards[relayer][feeAsset];
    }

    function getFeeInfo(bytes32 messageID) external view returns (address, uint256) {
        TeleporterFeeInfo memory fee = sentMessageInfo[messageID].feeInfo;
        return (fee.feeTokenAddress, fee.amount);
    }

    function getNextMessageID(bytes32 destinationBlockchainID) external view returns (bytes32) {
        require(blockchainID != bytes32(0), "TeleporterMessenger: zero blockchain ID");
        return calculateMessageID(blockchainID, destinationBlockchainID, messageNonce + 1);
    }

    function getReceiptQueueSize(bytes32 sourceBlockchainID) external view returns (uint256) {
        ReceiptQueue storage queue = receiptQueues[sourceBlockchainID];
        return queue.next - queue.first;
    }

    function getReceiptAtIndex(bytes32 sourceBlockchainID, uint256 index)
        external
        view
        returns (TeleporterMessageReceipt memory)
    {
        ReceiptQueue storage queue = receiptQueues[sourceBlockchainID];
        require(index < queue.next - queue.first, "ReceiptQueue: index out of bounds");
        return queue.at[queue.first + index];
    }

    /// Reads this chain's blockchain ID from the Warp precompile the first time.
    function initializeBlockchainID() public returns (bytes32) {
        bytes32 id = blockchainID;
        if (id == bytes32(0)) {
            id = WARP_MESSENGER.getBlockchainID();
            require(id != bytes32(0), "TeleporterMessenger: zero blockchain ID");
            blockchainID = id;
            emit BlockchainIDInitialized(id);
        }
        return id;
    }

    function calculateMessageID(bytes32 sourceBlockchainID, bytes32 destinationBlockchainID, uint256 nonce)
        public
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(address(this), sourceBlockchainID, destinationBlockchainID, nonce));
    }

    function send(TeleporterMessageInput memory input, TeleporterMessageReceipt[] memory receipts)
        private
        returns (bytes32)
    {
        bytes32 here = initializeBlockchainID();
        uint256 nonce = ++messageNonce;
        bytes32 messageID = calculateMessageID(here, input.destinationBlockchainID, nonce);
        TeleporterMessage memory message = TeleporterMessage({
            messageNonce: nonce,
            originSenderAddress: msg.sender,
            destinationBlockchainID: input.destinationBlockchainID,
            destinationAddress: input.destinationAddress,
            requiredGasLimit: input.requiredGasLimit,
            allowedRelayerAddresses: input.allowedRelayerAddresses,
            receipts: receipts,
            message: input.message
        });
        bytes memory encoded = abi.encode(message);
        uint256 paid;
        if (input.feeInfo.amount > 0) {
            require(input.feeInfo.feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
            paid = pull(input.feeInfo.feeTokenAddress, input.feeInfo.amount);
        }
        TeleporterFeeInfo memory fee = TeleporterFeeInfo(input.feeInfo.feeTokenAddress, paid);
        sentMessageInfo[messageID] = SentMessageInfo(keccak256(encoded), fee);
        emit SendCrossChainMessage(messageID, input.destinationBlockchainID, message, fee);
        WARP_MESSENGER.sendWarpMessage(encoded);
        return messageID;
    }

    /// Takes up to `RECEIPTS_PER_MESSAGE` receipts owed to `chain`, oldest first.
    function takeReceipts(bytes32 chain) private returns (TeleporterMessageReceipt[] memory out) {
        ReceiptQueue storage queue = receiptQueues[chain];
        uint256 count = queue.next - queue.first;
        if (count > RECEIPTS_PER_MESSAGE) {
            count = RECEIPTS_PER_MESSAGE;
        }
        out = new TeleporterMessageReceipt[](count);
        for (uint256 i = 0; i < count; i++) {
            out[i] = queue.at[queue.first];
            delete queue.at[queue.first];
            queue.first++;
        }
    }

    /// Pays the fee of our message the receipt acknowledges, once.
    function settleReceipt(bytes32 here, bytes32 destination, TeleporterMessageReceipt memory receipt) private {
        bytes32 messageID = calculateMessageID(here, destination, receipt.receivedMessageNonce);
        SentMessageInfo memory info = sentMessageInfo[messageID];
        if (info.messageHash == bytes32(0)) {
            return;
        }
        delete sentMessageInfo[messageID];
        rewards[receipt.relayerRewardAddress][info.feeInfo.feeTokenAddress] += info.feeInfo.amount;
        emit ReceiptReceived(messageID, destination, receipt.relayerRewardAddress, info.feeInfo);
    }

    function execute(bytes32 messageID, bytes32 source, TeleporterMessage memory message) private {
        require(gasleft() >= message.requiredGasLimit, "TeleporterMessenger: insufficient gas");
        bool ok = message.destinationAddress.code.length > 0
            && call(
                message.destinationAddress,
                message.requiredGasLimit,
                abi.encodeCall(
                    ITeleporterReceiver.receiveTeleporterMessage, (source, message.originSenderAddress, message.message)
                )
            );
        if (!ok) {
            receivedFailedMessageHashes[messageID] = keccak256(abi.encode(message));
            emit MessageExecutionFailed(messageID, source, message);
            return;
        }
        emit MessageExecuted(messageID, source);
    }

    /// Calls `target` with `gasLimit` gas, copying no return data (no return bomb).
    function call(address target, uint256 gasLimit, bytes memory data) private returns (bool ok) {
        assembly {
            ok := call(gasLimit, target, 0, add(data, 0x20), mload(data), 0, 0)
        }
    }

    /// Moves `amount` of `token` from the caller here; returns what arrived.
    function pull(address token, uint256 amount) private returns (uint256) {
        uint256 before = IERC20Like(token).balanceOf(address(this));
        (bool ok, bytes memory data) =
            token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, address(this), amount));
        require(ok && (data.length == 0 || abi.decode(data, (bool))), "SafeERC20: ERC20 operation did not succeed");
        uint256 afterwards = IERC20Like(token).balanceOf(address(this));
        require(afterwards > before, "SafeERC20TransferFrom: balance not increased");
        return afterwards - before;
    }

    function isAllowedRelayer(address deliverer, address[] memory allowed) private pure returns (bool) {
        if (allowed.length == 0) {
            return true;
        }
        for (uint256 i = 0; i < allowed.length; i++) {
            if (allowed[i] == deliverer) {
                return true;
            }
        }
        return false;
    }
}

/// A Teleporter app for the devnet and the tests: keeps the last message each sender sent, and
/// refuses messages while closed (so a delivery fails and is retried after `open`).
contract FirnTeleporterInbox is ITeleporterReceiver {
    address public immutable messenger;
    address public owner;
    bool public closed;
    uint256 public received;
    mapping(bytes32 => mapping(address => bytes)) public lastMessage;

    event Received(bytes32 indexed sourceBlockchainID, address indexed originSenderAddress, bytes message);

    constructor(address messenger_) {
        messenger = messenger_;
        owner = msg.sender;
    }

    function setClosed(bool closed_) external {
        require(msg.sender == owner, "FirnTeleporterInbox: not the owner");
        closed = closed_;
    }

    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external
    {
        require(msg.sender == messenger, "FirnTeleporterInbox: not the messenger");
        require(!closed, "FirnTeleporterInbox: closed");
        lastMessage[sourceBlockchainID][originSenderAddress] = message;
        received++;
        emit Received(sourceBlockchainID, originSenderAddress, message);
    }
}
