// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

/// What anyone can deploy on a public chain to hurt an indexer, in one contract: an ERC-721
/// whose events lie, whose metadata calls burn all their gas or answer megabytes, whose token
/// URIs point wherever its deployer likes, and whose calls nest as deep as the EVM allows.
/// firn's hostile-chain tests stage each attack with it and check indexing goes on.
contract FirnHostile {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    string private _name;
    mapping(uint256 => string) private _uris;
    mapping(uint256 => bool) private _burnsGas;
    mapping(uint256 => uint256) private _hugeUris;
    uint256 public depthReached;

    constructor(string memory name_) {
        _name = name_;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 // ERC-165
            || id == 0x80ac58cd // ERC-721
            || id == 0x5b5e139f; // ERC-721 metadata
    }

    function name() external view returns (string memory) {
        return _name;
    }

    function symbol() external view returns (string memory) {
        return _name;
    }

    /// Sets what `name()` and `symbol()` answer (any length).
    function setName(string calldata name_) external {
        _name = name_;
    }

    /// "Mints" `tokenId` to `to` with the given token URI; when `burnGas`, `tokenURI` loops
    /// until it runs out of gas instead.
    function mint(address to, uint256 tokenId, string calldata uri, bool burnGas) external {
        _uris[tokenId] = uri;
        _burnsGas[tokenId] = burnGas;
        emit Transfer(address(0), to, tokenId);
    }

    /// Mints `tokenId` with a token URI of `size` bytes, made when asked (nothing stored but
    /// the size): a cheap way to make a node answer a huge string.
    function mintHugeUri(address to, uint256 tokenId, uint256 size) external {
        _hugeUris[tokenId] = size;
        emit Transfer(address(0), to, tokenId);
    }

    /// Transfer events from holders who hold nothing: `count` of them, ids from `firstId`.
    function forge(address from, address to, uint256 firstId, uint256 count) external {
        for (uint256 i = 0; i < count; i++) {
            emit Transfer(from, to, firstId + i);
        }
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        if (_burnsGas[tokenId]) {
            uint256 spin;
            while (gasleft() > 0) {
                spin++;
            }
            return "";
        }
        uint256 huge = _hugeUris[tokenId];
        if (huge > 0) {
            bytes memory b = new bytes(huge);
            for (uint256 i = 0; i < huge; i += 32) {
                assembly {
                    mstore(add(add(b, 32), i), 0x4141414141414141414141414141414141414141414141414141414141414141)
                }
            }
            return string(b);
        }
        return _uris[tokenId];
    }

    /// Calls itself `depth` times: a call tree as deep as the gas allows.
    function deep(uint256 depth) external {
        if (depth == 0) {
            depthReached = depthReached + 1;
            return;
        }
        this.deep(depth - 1);
    }
}
