//! Whether calldata can be an ABI encoding of a parameter list: the head's size, its
//! elementary words (an `address` has 12 zero bytes, a `bool` is 0 or 1, …) and the top-level
//! offsets of dynamic parameters. A 4-byte selector collides often (4byte.directory holds four
//! signatures for `0xa9059cbb`); the calldata's shape tells them apart without decoding it,
//! in time bounded by the parameter list, whatever the calldata's size.

use alloy_json_abi::Param;

/// How well calldata fits a parameter list; `Exact` ranks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Fit {
    /// Every byte is accounted for.
    Exact,
    /// The head fits, with bytes after it that no parameter explains.
    Trailing,
}

/// An ABI type as far as the shape check needs it.
#[derive(Debug)]
enum Ty {
    /// One 32-byte word, with what its value may be.
    Word(Word),
    /// `bytes` or `string`.
    Bytes,
    /// `T[k]` (`Some(k)`) or `T[]`.
    Array(Box<Ty>, Option<usize>),
    /// `(T1, …)`.
    Tuple(Vec<Ty>),
}

#[derive(Debug, Clone, Copy)]
enum Word {
    Address,
    Bool,
    Uint(usize),
    Int(usize),
    FixedBytes(usize),
    Any,
}

/// Parameters deeper than this are not a real function's; the candidate is dropped.
const MAX_DEPTH: usize = 16;

/// How `args` (calldata after the selector) fits `params`, or `None` when it cannot be their
/// encoding.
pub(crate) fn fit(params: &[Param], args: &[u8]) -> Option<Fit> {
    let types = params
        .iter()
        .map(|p| ty(&p.ty, &p.components, 0))
        .collect::<Option<Vec<_>>>()?;
    let head = types
        .iter()
        .try_fold(0usize, |sum, t| sum.checked_add(head_words(t)?))?
        .checked_mul(32)?;
    if args.len() < head {
        return None;
    }
    let mut at = 0;
    let mut all_static = true;
    for t in &types {
        match static_words(t) {
            Some(n) => {
                let bytes = args.get(at..at + n * 32)?;
                if !static_fits(t, bytes) {
                    return None;
                }
                at += n * 32;
            }
            None => {
                all_static = false;
                tail_fits(t, args, word(args, at)?, head)?;
                at += 32;
            }
        }
    }
    if all_static && args.len() != head {
        Some(Fit::Trailing)
    } else {
        Some(Fit::Exact)
    }
}

fn ty(name: &str, components: &[Param], depth: usize) -> Option<Ty> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(open) = name.strip_suffix(']').and_then(|n| n.rfind('[')) {
        let inner = ty(&name[..open], components, depth + 1)?;
        let len = &name[open + 1..name.len() - 1];
        let len = if len.is_empty() {
            None
        } else {
            Some(len.parse().ok()?)
        };
        return Some(Ty::Array(Box::new(inner), len));
    }
    let bits = |prefix: &str| -> Option<usize> {
        let n = name.strip_prefix(prefix)?;
        if n.is_empty() {
            return Some(256);
        }
        n.parse()
            .ok()
            .filter(|b| b % 8 == 0 && (8..=256).contains(b))
    };
    Some(match name {
        "tuple" => Ty::Tuple(
            components
                .iter()
                .map(|c| ty(&c.ty, &c.components, depth + 1))
                .collect::<Option<_>>()?,
        ),
        "address" => Ty::Word(Word::Address),
        "bool" => Ty::Word(Word::Bool),
        "bytes" | "string" => Ty::Bytes,
        "function" => Ty::Word(Word::Any),
        _ if name.starts_with("uint") => Ty::Word(Word::Uint(bits("uint")?)),
        _ if name.starts_with("int") => Ty::Word(Word::Int(bits("int")?)),
        _ if name.starts_with("bytes") => {
            let n: usize = name["bytes".len()..].parse().ok()?;
            Ty::Word(Word::FixedBytes(n).checked_fixed()?)
        }
        _ if name.starts_with("fixed") || name.starts_with("ufixed") => Ty::Word(Word::Any),
        _ => return None,
    })
}

impl Word {
    fn checked_fixed(self) -> Option<Self> {
        match self {
            Word::FixedBytes(n) if !(1..=32).contains(&n) => None,
            w => Some(w),
        }
    }

    /// Whether `w` is a valid encoding of this type.
    fn accepts(self, w: &[u8]) -> bool {
        let zero_prefix = |n: usize| w[..n].iter().all(|&b| b == 0);
        match self {
            Word::Address => zero_prefix(12),
            Word::Bool => zero_prefix(31) && w[31] <= 1,
            Word::Uint(bits) => zero_prefix(32 - bits / 8),
            Word::Int(bits) => {
                let pad = 32 - bits / 8;
                let fill = if w[pad] & 0x80 == 0 { 0 } else { 0xff };
                w[..pad].iter().all(|&b| b == fill)
            }
            Word::FixedBytes(n) => w[n..].iter().all(|&b| b == 0),
            Word::Any => true,
        }
    }
}

/// Words an element takes in its head: its size when static, one offset otherwise.
fn head_words(t: &Ty) -> Option<usize> {
    Some(static_words(t).unwrap_or(1))
}

/// Words of a static type; `None` for dynamic ones (and sizes past any calldata).
fn static_words(t: &Ty) -> Option<usize> {
    match t {
        Ty::Word(_) => Some(1),
        Ty::Bytes | Ty::Array(_, None) => None,
        Ty::Array(inner, Some(k)) => static_words(inner)?.checked_mul(*k),
        Ty::Tuple(items) => items
            .iter()
            .try_fold(0usize, |sum, t| sum.checked_add(static_words(t)?)),
    }
}

/// Whether `bytes` (exactly `static_words(t)` words) encodes static type `t`.
fn static_fits(t: &Ty, bytes: &[u8]) -> bool {
    match t {
        Ty::Word(w) => w.accepts(bytes),
        Ty::Array(inner, Some(_)) => match static_words(inner) {
            Some(n) if n > 0 => bytes.chunks(n * 32).all(|c| static_fits(inner, c)),
            _ => true,
        },
        Ty::Tuple(items) => {
            let mut at = 0;
            items.iter().all(|item| {
                let n = static_words(item).unwrap_or(0) * 32;
                let fits = bytes.get(at..at + n).is_some_and(|b| static_fits(item, b));
                at += n;
                fits
            })
        }
        Ty::Bytes | Ty::Array(_, None) => false,
    }
}

/// The value of the word at byte `at` when it is a `usize` (an offset or a length).
fn word(args: &[u8], at: usize) -> Option<usize> {
    let w = args.get(at..at.checked_add(32)?)?;
    if w[..24].iter().any(|&b| b != 0) {
        return None;
    }
    usize::try_from(u64::from_be_bytes(w[24..].try_into().ok()?)).ok()
}

/// Whether a dynamic parameter's tail at `offset` lies inside `args`, after the head.
fn tail_fits(t: &Ty, args: &[u8], offset: usize, head: usize) -> Option<()> {
    if offset < head || !offset.is_multiple_of(32) {
        return None;
    }
    let body = |len_words: usize| -> Option<()> {
        let end = offset.checked_add(len_words.checked_mul(32)?)?;
        (end <= args.len()).then_some(())
    };
    match t {
        Ty::Bytes => {
            let len = word(args, offset)?;
            body(1 + len.div_ceil(32))
        }
        Ty::Array(inner, None) => {
            let len = word(args, offset)?;
            body(1 + len.checked_mul(head_words(inner)?)?)
        }
        Ty::Array(inner, Some(k)) => body(k.checked_mul(head_words(inner)?)?),
        Ty::Tuple(items) => body(
            items
                .iter()
                .try_fold(0usize, |sum, t| sum.checked_add(head_words(t)?))?,
        ),
        Ty::Word(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use alloy_json_abi::Function;

    use super::*;

    fn fits(signature: &str, args: &str) -> Option<Fit> {
        let f = Function::parse(signature).expect("signature");
        fit(&f.inputs, &hex(args))
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    }

    const ADDRESS: &str = "000000000000000000000000d8da6bf26964af9d7eed9e03e53415d37aa96045";
    const AMOUNT: &str = "0000000000000000000000000000000000000000000000000de0b6b3a7640000";

    #[test]
    fn an_erc20_transfer_fits_only_its_own_signature() {
        let args = format!("{ADDRESS}{AMOUNT}");
        assert_eq!(fits("transfer(address,uint256)", &args), Some(Fit::Exact));
        // The other signatures 4byte.directory holds for 0xa9059cbb.
        assert_eq!(fits("many_msg_babbage(bytes1)", &args), None);
        assert_eq!(fits("transfer(bytes4[9],bytes5[6],int48[11])", &args), None);
        assert_eq!(fits("func_2093253501(bytes)", &args), None);
    }

    #[test]
    fn words_must_be_valid_for_their_type() {
        assert_eq!(fits("f(address)", AMOUNT), Some(Fit::Exact));
        assert_eq!(fits("f(address)", &"ff".repeat(32)), None);
        assert_eq!(fits("f(bool)", &format!("{:064x}", 2)), None);
        assert_eq!(fits("f(uint8)", &format!("{:064x}", 256)), None);
        assert_eq!(fits("f(int8)", &"ff".repeat(32)), Some(Fit::Exact));
        assert_eq!(fits("f(bytes1)", AMOUNT), None);
        assert_eq!(
            fits("f(uint256)", &format!("{AMOUNT}{AMOUNT}")),
            Some(Fit::Trailing)
        );
    }

    #[test]
    fn dynamic_parameters_need_their_tail() {
        let hello = format!(
            "{:064x}{:064x}{}",
            32,
            5,
            "68656c6c6f".to_owned() + &"00".repeat(27)
        );
        assert_eq!(fits("f(string)", &hello), Some(Fit::Exact));
        assert_eq!(fits("f(bytes)", &hello[..128]), None);
        assert_eq!(
            fits("f(uint256[])", &format!("{:064x}{:064x}", 32, 1)),
            None
        );
        assert_eq!(
            fits("f(uint256[])", &format!("{:064x}{:064x}{AMOUNT}", 32, 1)),
            Some(Fit::Exact)
        );
        // An offset pointing into the head, or a length no calldata can hold.
        assert_eq!(fits("f(bytes)", &format!("{:064x}{:064x}", 0, 0)), None);
        assert_eq!(
            fits("f(bytes)", &format!("{:064x}{}", 32, "ff".repeat(32))),
            None
        );
    }

    #[test]
    fn tuples_and_static_arrays_are_inlined() {
        let args = format!("{ADDRESS}{AMOUNT}{AMOUNT}");
        assert_eq!(
            fits("f((address,uint256),uint256)", &args),
            Some(Fit::Exact)
        );
        assert_eq!(fits("f(uint256[3])", &args), Some(Fit::Exact));
        assert_eq!(fits("f(address[3])", &args), Some(Fit::Exact));
        assert_eq!(fits("f(uint256[4294967296000000000])", &args), None);
    }
}
