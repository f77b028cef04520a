// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

import "./Strings.sol";

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}

/// An ERC-721 whose metadata lives on chain: `tokenURI` is a `data:application/json` URI, so an
/// indexer can read it offline.
contract FirnCollectible {
    using Strings for uint256;

    string public name;
    string public symbol;
    address public owner;
    uint256 public totalSupply;

    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;
    mapping(uint256 => address) private _approvals;
    mapping(address => mapping(address => bool)) private _operators;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 // ERC-165
            || id == 0x80ac58cd // ERC-721
            || id == 0x5b5e139f; // ERC-721 metadata
    }

    function balanceOf(address account) external view returns (uint256) {
        require(account != address(0), "ERC721: address zero is not a valid owner");
        return _balances[account];
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        address holder = _owners[tokenId];
        require(holder != address(0), "ERC721: invalid token ID");
        return holder;
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        string memory id = tokenId.toString();
        return string.concat(
            'data:application/json;utf8,{"name":"',
            name,
            " #",
            id,
            '","description":"A firn devnet collectible.","image":"data:image/svg+xml;utf8,<svg xmlns=\'http://www.w3.org/2000/svg\'/>","attributes":[{"trait_type":"serial","value":',
            id,
            "}]}"
        );
    }

    function approve(address to, uint256 tokenId) external {
        address holder = ownerOf(tokenId);
        require(msg.sender == holder || _operators[holder][msg.sender], "ERC721: not owner nor approved for all");
        _approvals[tokenId] = to;
        emit Approval(holder, to, tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        ownerOf(tokenId);
        return _approvals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        _operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address holder, address operator) external view returns (bool) {
        return _operators[holder][operator];
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address holder = ownerOf(tokenId);
        require(holder == from, "ERC721: transfer from incorrect owner");
        require(
            msg.sender == holder || _approvals[tokenId] == msg.sender || _operators[holder][msg.sender],
            "ERC721: caller is not token owner or approved"
        );
        require(to != address(0), "ERC721: transfer to the zero address");
        delete _approvals[tokenId];
        unchecked {
            _balances[from] -= 1;
        }
        _balances[to] += 1;
        _owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        _checkReceiver(from, to, tokenId, data);
    }

    /// Mints the next token ID to `to` and returns it.
    function mint(address to) external returns (uint256 tokenId) {
        require(msg.sender == owner, "FirnCollectible: only the owner mints");
        require(to != address(0), "ERC721: mint to the zero address");
        tokenId = ++totalSupply;
        _balances[to] += 1;
        _owners[tokenId] = to;
        emit Transfer(address(0), to, tokenId);
    }

    function _checkReceiver(address from, address to, uint256 tokenId, bytes memory data) private {
        if (to.code.length == 0) return;
        bytes4 answer = IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data);
        require(answer == IERC721Receiver.onERC721Received.selector, "ERC721: transfer to non ERC721Receiver implementer");
    }
}
