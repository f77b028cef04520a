//! Shared property checks of the codecs.

use arbitrary::{Arbitrary, Unstructured};
use firn_core::codec;
use proptest::prelude::*;

/// Builds a `T` from `raw` (when `raw` is long enough) and checks that encoding then decoding
/// gives it back.
pub fn round_trip<T>(raw: &[u8]) -> Result<(), TestCaseError>
where
    T: for<'a> Arbitrary<'a> + codec::Encode + codec::Decode + PartialEq + std::fmt::Debug,
{
    let Ok(value) = T::arbitrary(&mut Unstructured::new(raw)) else {
        return Ok(());
    };
    let bytes = codec::to_bytes(&value);
    let back: T = codec::from_bytes_with_max(&bytes, usize::MAX)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(back, value);
    Ok(())
}

/// Declares one proptest per codec type: an arbitrary value, encoded then decoded, comes back.
macro_rules! round_trip_props {
    ($($test:ident: $t:ty, $max_len:expr;)*) => {
        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
            $(
                #[test]
                fn $test(raw in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..$max_len)) {
                    $crate::props::round_trip::<$t>(&raw)?;
                }
            )*
        }
    };
}
pub(crate) use round_trip_props;
