// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.28;

/// A rebasing ERC-20, like stETH or AMPL: holders own shares, and `balanceOf` is their shares
/// at the current share price, which the owner's `rebase` raises or lowers without a
/// `Transfer` event. Balances folded from `Transfer` events drift from `balanceOf` after the
/// first rebase; firn's history uses it to show that the index notices and reads such a
/// token's balances from the node.
contract FirnRebasing {
    uint256 private constant ONE = 1e18;

    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    address public owner;
    /// Tokens per share, scaled by 1e18.
    uint256 public sharePrice = ONE;
    uint256 public totalShares;

    mapping(address => uint256) public sharesOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Rebased(uint256 sharePrice);

    constructor(string memory name_, string memory symbol_, uint256 initialSupply) {
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
        _mint(msg.sender, initialSupply);
    }

    function balanceOf(address who) public view returns (uint256) {
        return sharesOf[who] * sharePrice / ONE;
    }

    function totalSupply() external view returns (uint256) {
        return totalShares * sharePrice / ONE;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "ERC20: insufficient allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == owner, "FirnRebasing: only the owner mints");
        _mint(to, value);
    }

    /// Sets the share price to `newSharePrice` (1e18 = one token per share).
    function rebase(uint256 newSharePrice) external {
        require(msg.sender == owner, "FirnRebasing: only the owner rebases");
        require(newSharePrice > 0, "FirnRebasing: zero share price");
        sharePrice = newSharePrice;
        emit Rebased(newSharePrice);
    }

    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 shares = value * ONE / sharePrice;
        uint256 held = sharesOf[from];
        require(held >= shares, "ERC20: transfer amount exceeds balance");
        unchecked {
            sharesOf[from] = held - shares;
        }
        sharesOf[to] += shares;
        emit Transfer(from, to, value);
    }

    function _mint(address to, uint256 value) private {
        require(to != address(0), "ERC20: mint to the zero address");
        uint256 shares = value * ONE / sharePrice;
        totalShares += shares;
        sharesOf[to] += shares;
        emit Transfer(address(0), to, value);
    }
}
