// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Counter} from "../src/Counter.sol";

interface Vm {
    function envAddress(string calldata name) external view returns (address);
}

/// Runs on a fork of the devnet's C-Chain (`forge test --fork-url`): reads the chain's state.
contract ForkTest {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function test_reads_the_forked_c_chain() external {
        require(block.chainid == 43113, "not the devnet's C-Chain");
        Counter counter = Counter(vm.envAddress("COUNTER"));
        uint256 before = counter.number();
        require(before >= 1, "the counter was incremented on the devnet");
        counter.increment();
        require(counter.number() == before + 1, "the fork runs the counter's code");
    }
}
