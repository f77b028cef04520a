// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

import "./FirnToken.sol";

/// Contract calls that make internal transactions: value split across recipients (internal
/// CALLs with value) and token deployment by CREATE and CREATE2.
contract FirnRouter {
    event Split(address indexed from, uint256 total, uint256 recipients);
    event Deployed(address indexed token, bytes32 salt);

    /// Sends `msg.value` in equal parts to `recipients`; any remainder goes back to the sender.
    function split(address payable[] calldata recipients) external payable {
        require(recipients.length > 0, "FirnRouter: no recipients");
        uint256 share = msg.value / recipients.length;
        for (uint256 i = 0; i < recipients.length; i++) {
            (bool ok,) = recipients[i].call{value: share}("");
            require(ok, "FirnRouter: transfer failed");
        }
        uint256 rest = msg.value - share * recipients.length;
        if (rest > 0) {
            (bool ok,) = payable(msg.sender).call{value: rest}("");
            require(ok, "FirnRouter: refund failed");
        }
        emit Split(msg.sender, msg.value, recipients.length);
    }

    /// Deploys a FirnToken owned by this router (CREATE, or CREATE2 when `salt` is nonzero) and
    /// sends its whole supply to the caller.
    function deployToken(string calldata name, string calldata symbol, uint256 supply, bytes32 salt)
        external
        returns (address token)
    {
        FirnToken t = salt == bytes32(0)
            ? new FirnToken(name, symbol, 18, supply)
            : new FirnToken{salt: salt}(name, symbol, 18, supply);
        t.transfer(msg.sender, supply);
        token = address(t);
        emit Deployed(token, salt);
    }
}
