// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

/// Decimal formatting for token metadata.
library Strings {
    function toString(uint256 value) internal pure returns (string memory) {
        if (value == 0) return "0";
        uint256 digits;
        for (uint256 v = value; v != 0; v /= 10) digits++;
        bytes memory out = new bytes(digits);
        for (uint256 i = digits; value != 0; value /= 10) {
            out[--i] = bytes1(uint8(48 + (value % 10)));
        }
        return string(out);
    }
}
