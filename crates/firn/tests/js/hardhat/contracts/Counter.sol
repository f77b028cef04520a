// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// A counter anyone can increment; each increment is logged.
contract Counter {
    uint256 public number;

    event Incremented(address indexed by, uint256 number);

    function increment() external {
        number += 1;
        emit Incremented(msg.sender, number);
    }
}
