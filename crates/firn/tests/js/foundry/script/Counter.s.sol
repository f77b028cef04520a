// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Counter} from "../src/Counter.sol";

/// Foundry's cheat codes this script uses (forge-std is not vendored).
interface Vm {
    function startBroadcast() external;
    function stopBroadcast() external;
}

/// Deploys a Counter and increments it: `forge script --broadcast` sends both.
contract CounterScript {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() external {
        vm.startBroadcast();
        Counter counter = new Counter();
        counter.increment();
        vm.stopBroadcast();
    }
}
