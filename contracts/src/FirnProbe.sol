// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

/// A contract whose one call makes every kind of internal transaction a call tracer reports:
/// a CREATE, a CALL with value, and two STATICCALLs, one reverting with a reason (caught).
contract FirnProbe {
    event Probed(address indexed child, bool failed, uint256 pings);

    /// Creates a child, pays it `msg.value`, reads it, then asks it to fail with `reason`.
    function probe(string calldata reason) external payable returns (address child) {
        FirnProbeChild c = new FirnProbeChild();
        c.ping{value: msg.value}();
        uint256 pings = c.pings();
        bool failed;
        try c.fail(reason) {} catch {
            failed = true;
        }
        child = address(c);
        emit Probed(child, failed, pings);
    }

    /// Reverts with `reason` itself (a reverting top-level call).
    function fail(string calldata reason) external pure {
        revert(reason);
    }
}

/// The probe's child: counts pings, fails on request.
contract FirnProbeChild {
    uint256 public pings;

    function ping() external payable {
        pings += 1;
    }

    function fail(string calldata reason) external pure {
        revert(reason);
    }
}
