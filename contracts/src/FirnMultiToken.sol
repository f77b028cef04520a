// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

import "./Strings.sol";

interface IERC1155Receiver {
    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data)
        external
        returns (bytes4);
    function onERC1155BatchReceived(
        address operator,
        address from,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external returns (bytes4);
}

/// An ERC-1155 whose `uri` is an on-chain `data:application/json` URI per token ID.
contract FirnMultiToken {
    using Strings for uint256;

    string public name;
    address public owner;

    mapping(uint256 => mapping(address => uint256)) private _balances;
    mapping(address => mapping(address => bool)) private _operators;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    constructor(string memory name_) {
        name = name_;
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 // ERC-165
            || id == 0xd9b67a26 // ERC-1155
            || id == 0x0e89341c; // ERC-1155 metadata URI
    }

    function uri(uint256 id) external view returns (string memory) {
        string memory sid = id.toString();
        return string.concat(
            'data:application/json;utf8,{"name":"', name, " #", sid, '","description":"A firn devnet multi-token.","decimals":0}'
        );
    }

    function balanceOf(address account, uint256 id) external view returns (uint256) {
        require(account != address(0), "ERC1155: address zero is not a valid owner");
        return _balances[id][account];
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids) external view returns (uint256[] memory out) {
        require(accounts.length == ids.length, "ERC1155: accounts and ids length mismatch");
        out = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) {
            out[i] = _balances[ids[i]][accounts[i]];
        }
    }

    function setApprovalForAll(address operator, bool approved) external {
        require(operator != msg.sender, "ERC1155: setting approval status for self");
        _operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address account, address operator) external view returns (bool) {
        return _operators[account][operator];
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external {
        require(from == msg.sender || _operators[from][msg.sender], "ERC1155: caller is not token owner or approved");
        require(to != address(0), "ERC1155: transfer to the zero address");
        _move(from, to, id, value);
        emit TransferSingle(msg.sender, from, to, id, value);
        if (to.code.length != 0) {
            bytes4 answer = IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, value, data);
            require(answer == IERC1155Receiver.onERC1155Received.selector, "ERC1155: ERC1155Receiver rejected tokens");
        }
    }

    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external {
        require(from == msg.sender || _operators[from][msg.sender], "ERC1155: caller is not token owner or approved");
        require(to != address(0), "ERC1155: transfer to the zero address");
        require(ids.length == values.length, "ERC1155: ids and values length mismatch");
        for (uint256 i = 0; i < ids.length; i++) {
            _move(from, to, ids[i], values[i]);
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
        if (to.code.length != 0) {
            bytes4 answer = IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, values, data);
            require(
                answer == IERC1155Receiver.onERC1155BatchReceived.selector, "ERC1155: ERC1155Receiver rejected tokens"
            );
        }
    }

    function mint(address to, uint256 id, uint256 value) external {
        require(msg.sender == owner, "FirnMultiToken: only the owner mints");
        require(to != address(0), "ERC1155: mint to the zero address");
        _balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        require(msg.sender == owner, "FirnMultiToken: only the owner mints");
        require(to != address(0), "ERC1155: mint to the zero address");
        require(ids.length == values.length, "ERC1155: ids and values length mismatch");
        for (uint256 i = 0; i < ids.length; i++) {
            _balances[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, values);
    }

    function _move(address from, address to, uint256 id, uint256 value) private {
        uint256 balance = _balances[id][from];
        require(balance >= value, "ERC1155: insufficient balance for transfer");
        unchecked {
            _balances[id][from] = balance - value;
        }
        _balances[id][to] += value;
    }
}
