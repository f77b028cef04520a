//! Method names for EVM calldata: which function a transaction's input calls, as the Data
//! API's `method.methodName` shows it (`transfer(address,uint256)`).
//!
//! A selector is the first four bytes of the keccak hash of a signature, so it names a
//! function only up to collisions. Two sources answer, in order:
//!
//! 1. the ABIs of the contracts firn ships (`contracts/artifacts`), which its devnet deploys;
//! 2. 4byte.directory's public database of about a million signatures, as the `etk-4byte`
//!    crate packs it offline. Unpacked it holds ~100 MB and takes seconds to load, so it is
//!    loaded only when asked for ([`load_directory`], on a thread of its own); until it is
//!    ready, only the ABIs answer, and a request never waits for it.
//!
//! A directory candidate is kept only if the calldata can be an encoding of its parameters
//! (the `shape` module: head size, valid words, top-level offsets); of several, an exact fit
//! wins over one with trailing bytes, then the shortest signature.
//!
//! ```
//! // FirnToken's transfer, from the shipped ABIs.
//! let mut input = vec![0xa9, 0x05, 0x9c, 0xbb];
//! input.extend([0u8; 64]);
//! assert_eq!(firn_selectors::method_name(&input), Some("transfer(address,uint256)"));
//! ```

mod shape;

use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use alloy_json_abi::{Function, JsonAbi};
use serde::Deserialize;

/// The name of the function `input` calls, if a source knows one that fits.
pub fn method_name(input: &[u8]) -> Option<&'static str> {
    let selector: [u8; 4] = input.get(..4)?.try_into().ok()?;
    if let Some(known) = shipped().get(&selector) {
        return Some(known);
    }
    if !directory_ready() {
        return None;
    }
    let args = &input[4..];
    etk_4byte::reverse_selector(u32::from_be_bytes(selector))
        .filter_map(|signature| {
            let function = Function::parse(signature).ok()?;
            let fit = shape::fit(&function.inputs, args)?;
            Some((fit, signature.len(), signature))
        })
        .min()
        .map(|(_, _, signature)| signature)
}

static DIRECTORY_READY: AtomicBool = AtomicBool::new(false);
static DIRECTORY_LOADING: OnceLock<()> = OnceLock::new();

/// Starts loading 4byte.directory's signatures on a thread of its own (once per process);
/// [`method_name`] uses them from the moment they are ready.
pub fn load_directory() {
    DIRECTORY_LOADING.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("firn-selectors".into())
            .spawn(load_directory_now);
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start loading the method-name directory; method names come from firn's own ABIs only");
        }
    });
}

/// Loads 4byte.directory's signatures on this thread (seconds); returns once they are ready.
pub fn load_directory_now() {
    if directory_ready() {
        return;
    }
    let started = Instant::now();
    let _ = etk_4byte::reverse_selector(0).count();
    DIRECTORY_READY.store(true, Ordering::Release);
    tracing::info!(elapsed = ?started.elapsed(), "method-name directory (4byte.directory) loaded");
}

/// Whether 4byte.directory's signatures are loaded.
pub fn directory_ready() -> bool {
    DIRECTORY_READY.load(Ordering::Acquire)
}

/// The artifacts of the contracts firn ships.
const ARTIFACTS: [&str; 9] = [
    include_str!("../../../contracts/artifacts/FirnToken.json"),
    include_str!("../../../contracts/artifacts/FirnCollectible.json"),
    include_str!("../../../contracts/artifacts/FirnMultiToken.json"),
    include_str!("../../../contracts/artifacts/FirnRouter.json"),
    include_str!("../../../contracts/artifacts/FirnProbe.json"),
    include_str!("../../../contracts/artifacts/FirnHostile.json"),
    include_str!("../../../contracts/artifacts/FirnRebasing.json"),
    include_str!("../../../contracts/artifacts/FirnTeleporterMessenger.json"),
    include_str!("../../../contracts/artifacts/FirnTeleporterInbox.json"),
];

#[derive(Deserialize)]
struct Artifact {
    abi: JsonAbi,
}

/// Selector → signature of every function in [`ARTIFACTS`].
fn shipped() -> &'static HashMap<[u8; 4], String> {
    static SHIPPED: OnceLock<HashMap<[u8; 4], String>> = OnceLock::new();
    SHIPPED.get_or_init(|| {
        let mut map = HashMap::new();
        for json in ARTIFACTS {
            match serde_json::from_str::<Artifact>(json) {
                Ok(artifact) => {
                    for f in artifact.abi.functions() {
                        map.insert(f.selector().0, f.signature());
                    }
                }
                Err(e) => {
                    tracing::error!(error = %e, "a shipped contract artifact has no readable ABI")
                }
            }
        }
        map
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(signature: &str, args: &[u8]) -> Vec<u8> {
        let f = Function::parse(signature).expect("signature");
        let mut input = f.selector().to_vec();
        input.extend_from_slice(args);
        input
    }

    #[test]
    fn shipped_abis_name_firns_own_functions() {
        let mint = call("mint(address,uint256)", &[0; 64]);
        assert_eq!(method_name(&mint), Some("mint(address,uint256)"));
        assert!(
            shipped().len() > 20,
            "{} shipped functions",
            shipped().len()
        );
    }

    #[test]
    fn the_directory_names_what_firn_does_not_ship_and_picks_the_candidate_that_fits() {
        load_directory_now();
        // Uniswap V2's router: not one of firn's contracts.
        let swap = "swapExactETHForTokens(uint256,address[],address,uint256)";
        let mut args = vec![0u8; 32];
        args.extend(shape_word(128));
        args.extend([0u8; 32]);
        args.extend([0u8; 32]);
        args.extend(shape_word(0));
        assert_eq!(method_name(&call(swap, &args)), Some(swap));
        // 0x3bb2dead is both `initialFundsReleaseNumerator()` and `resolveAddressLight(address)`:
        // the calldata decides.
        let selector = [0x3b, 0xb2, 0xde, 0xad];
        assert_eq!(
            method_name(&selector),
            Some("initialFundsReleaseNumerator()")
        );
        let with_address = [&selector[..], &shape_word(0xdead)].concat();
        assert_eq!(
            method_name(&with_address),
            Some("resolveAddressLight(address)")
        );
        // Calldata that fits no candidate has no name.
        assert_eq!(method_name(&call(swap, &[1, 2, 3])), None);
        assert_eq!(method_name(&[0xa9, 0x05]), None);
    }

    proptest::proptest! {
        /// Whatever the calldata (anyone chooses a transaction's input), naming it never
        /// panics, and a name is a signature whose selector is the input's. Words are small
        /// numbers as often as noise, so that candidates fit as well as fail.
        #[test]
        fn a_name_always_hashes_to_the_calldatas_selector(
            selector in proptest::sample::select(vec![
                [0xa9, 0x05, 0x9c, 0xbb], [0x09, 0x5e, 0xa7, 0xb3], [0x3b, 0xb2, 0xde, 0xad],
                [0x7f, 0xf3, 0x6a, 0xb5], [0x38, 0xed, 0x17, 0x39], [0x12, 0x34, 0x56, 0x78],
            ]),
            words in proptest::collection::vec(
                (proptest::bool::ANY, 0u64..300, proptest::array::uniform32(0u8..)),
                0..12,
            ),
            tail in proptest::collection::vec(0u8.., 0..40),
        ) {
            load_directory_now();
            let mut input = selector.to_vec();
            for (small, n, noise) in words {
                input.extend(if small { shape_word(n) } else { noise });
            }
            input.extend(tail);
            if let Some(name) = method_name(&input) {
                let f = Function::parse(name).expect("a returned name parses");
                proptest::prop_assert_eq!(f.selector().0, selector);
            }
        }
    }

    fn shape_word(n: u64) -> [u8; 32] {
        let mut w = [0u8; 32];
        w[24..].copy_from_slice(&n.to_be_bytes());
        w
    }
}
