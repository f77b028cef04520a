//! AvalancheGo's linear codec: big-endian fixed-width integers, u32-length slices,
//! u16-length strings, u32 type IDs for interfaces, and a u16 codec version (always 0)
//! once at the top of a value.
//!
//! [`Reader`] is the only way bytes come in, and it never trusts a length: every slice
//! count is checked against the bytes that remain before anything is allocated, nesting
//! depth is capped, and a whole value is capped at [`MAX_SIZE`]. Hostile input therefore
//! ends in a [`CodecError`], never a panic, a loop or an unbounded allocation.

/// The only codec version AvalancheGo writes.
pub const CODEC_VERSION: u16 = 0;
/// AvalancheGo's default maximum size of a codec value (txs and blocks): 256 KiB.
pub const MAX_SIZE: usize = 256 * 1024;
/// The deepest nesting of interfaces we accept (real values nest at most four deep).
pub const MAX_DEPTH: u32 = 16;

/// Why bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("unexpected end of input: needed {needed} more bytes at offset {offset}")]
    UnexpectedEof { offset: usize, needed: usize },
    #[error("{0} trailing bytes after the value")]
    TrailingBytes(usize),
    #[error("unknown codec version {0}")]
    UnknownVersion(u16),
    #[error("unknown type ID {type_id} for {context}")]
    UnknownTypeId { type_id: u32, context: &'static str },
    #[error("invalid bool byte {0}")]
    InvalidBool(u8),
    #[error("input of {len} bytes exceeds the maximum of {max}")]
    TooLarge { len: usize, max: usize },
    #[error("slice of {count} elements cannot fit in the {remaining} bytes left")]
    SliceTooLong { count: u32, remaining: usize },
    #[error("values nest deeper than {MAX_DEPTH}")]
    TooDeep,
    #[error("string is not valid UTF-8")]
    InvalidUtf8,
    #[error("invalid value: {0}")]
    Invalid(&'static str),
}

/// A cursor over untrusted bytes.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> Reader<'a> {
    /// Starts reading `buf` from its first byte.
    pub fn new(buf: &'a [u8]) -> Self {
        Self {
            buf,
            pos: 0,
            depth: 0,
        }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Offset of the next byte.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The bytes read from `start` up to the current position.
    pub fn consumed_since(&self, start: usize) -> &'a [u8] {
        &self.buf[start..self.pos]
    }

    /// Fails unless every byte was read.
    pub fn finish(&self) -> Result<(), CodecError> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(CodecError::TrailingBytes(n)),
        }
    }

    /// Reads `n` raw bytes.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        if self.remaining() < n {
            return Err(CodecError::UnexpectedEof {
                offset: self.pos,
                needed: n - self.remaining(),
            });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Reads a fixed-size byte array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], CodecError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8, CodecError> {
        Ok(self.array::<1>()?[0])
    }

    #[inline]
    pub fn bool(&mut self) -> Result<bool, CodecError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(CodecError::InvalidBool(b)),
        }
    }

    #[inline]
    pub fn u16(&mut self) -> Result<u16, CodecError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    #[inline]
    pub fn u32(&mut self) -> Result<u32, CodecError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    #[inline]
    pub fn u64(&mut self) -> Result<u64, CodecError> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Reads a slice count and checks that `count` elements of at least `min_elem_size`
    /// bytes each can fit in what remains, so that callers may allocate `count` up front.
    #[inline]
    pub fn count(&mut self, min_elem_size: usize) -> Result<usize, CodecError> {
        let count = self.u32()?;
        let needed = (count as usize).saturating_mul(min_elem_size.max(1));
        if needed > self.remaining() {
            return Err(CodecError::SliceTooLong {
                count,
                remaining: self.remaining(),
            });
        }
        Ok(count as usize)
    }

    /// Reads a u32-length byte slice, borrowed.
    #[inline]
    pub fn bytes(&mut self) -> Result<&'a [u8], CodecError> {
        let n = self.count(1)?;
        self.take(n)
    }

    /// Reads a u16-length UTF-8 string.
    pub fn string(&mut self) -> Result<String, CodecError> {
        let n = self.u16()? as usize;
        let raw = self.take(n)?;
        std::str::from_utf8(raw)
            .map(str::to_owned)
            .map_err(|_| CodecError::InvalidUtf8)
    }

    /// Reads a slice of values.
    pub fn vec<T: Decode>(&mut self) -> Result<Vec<T>, CodecError> {
        let n = self.count(T::MIN_SIZE)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(T::decode(self)?);
        }
        Ok(out)
    }

    /// Runs `f` one nesting level deeper, failing past [`MAX_DEPTH`].
    pub fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, CodecError>,
    ) -> Result<T, CodecError> {
        if self.depth >= MAX_DEPTH {
            return Err(CodecError::TooDeep);
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// Reads a type ID and fails unless it is `want`, naming `context` in the error.
    pub fn expect_type_id(&mut self, want: u32, context: &'static str) -> Result<(), CodecError> {
        match self.u32()? {
            t if t == want => Ok(()),
            type_id => Err(CodecError::UnknownTypeId { type_id, context }),
        }
    }

    /// Reads and checks the codec version.
    pub fn version(&mut self) -> Result<(), CodecError> {
        match self.u16()? {
            CODEC_VERSION => Ok(()),
            v => Err(CodecError::UnknownVersion(v)),
        }
    }
}

/// Appends codec bytes to a buffer.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            buf: Vec::with_capacity(n),
        }
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Number of bytes written.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True before anything is written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    pub fn raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn bool(&mut self, v: bool) {
        self.buf.push(v as u8);
    }

    pub fn u16(&mut self, v: u16) {
        self.raw(&v.to_be_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.raw(&v.to_be_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.raw(&v.to_be_bytes());
    }

    /// Writes a slice count. Counts above `u32::MAX` cannot be represented; values that
    /// large are far past [`MAX_SIZE`] and never built by this crate.
    pub fn count(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// Writes a u32-length byte slice.
    pub fn bytes(&mut self, b: &[u8]) {
        self.count(b.len());
        self.raw(b);
    }

    /// Writes a u16-length string.
    pub fn string(&mut self, s: &str) {
        self.u16(u16::try_from(s.len()).unwrap_or(u16::MAX));
        self.raw(s.as_bytes());
    }

    /// Writes a slice of values.
    pub fn vec<T: Encode>(&mut self, items: &[T]) {
        self.count(items.len());
        for item in items {
            item.encode(self);
        }
    }

    /// Writes the codec version.
    pub fn version(&mut self) {
        self.u16(CODEC_VERSION);
    }
}

/// A value with a codec form.
pub trait Encode {
    /// Appends the value's bytes (no codec version).
    fn encode(&self, w: &mut Writer);
}

/// A value that can be read from codec bytes.
pub trait Decode: Sized {
    /// The fewest bytes one encoded value takes; bounds slice counts before allocating.
    const MIN_SIZE: usize;
    /// Reads one value (no codec version).
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError>;
}

/// Encodes a top-level value: codec version, then the value.
pub fn to_bytes<T: Encode + ?Sized>(value: &T) -> Vec<u8> {
    let mut w = Writer::with_capacity(256);
    w.version();
    value.encode(&mut w);
    w.into_bytes()
}

/// Decodes a top-level value: at most [`MAX_SIZE`] bytes, codec version 0, no trailing bytes.
pub fn from_bytes<T: Decode>(bytes: &[u8]) -> Result<T, CodecError> {
    from_bytes_with_max(bytes, MAX_SIZE)
}

/// [`from_bytes`] with another size limit (AvalancheGo's genesis codec allows more).
pub fn from_bytes_with_max<T: Decode>(bytes: &[u8], max: usize) -> Result<T, CodecError> {
    if bytes.len() > max {
        return Err(CodecError::TooLarge {
            len: bytes.len(),
            max,
        });
    }
    let mut r = Reader::new(bytes);
    r.version()?;
    let value = T::decode(&mut r)?;
    r.finish()?;
    Ok(value)
}

/// A u32-length byte slice (`[]byte` in Go structs): decoded in one copy, not byte by byte.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Bytes(pub Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "0x{}", hex::encode(&self.0))
    }
}

impl std::ops::Deref for Bytes {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Self {
        Self(v)
    }
}

impl From<&[u8]> for Bytes {
    fn from(v: &[u8]) -> Self {
        Self(v.to_vec())
    }
}

impl Encode for Bytes {
    fn encode(&self, w: &mut Writer) {
        w.bytes(&self.0);
    }
}

impl Decode for Bytes {
    const MIN_SIZE: usize = 4;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(Self(r.bytes()?.to_vec()))
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, w: &mut Writer) {
        w.vec(self);
    }
}

impl<T: Decode> Decode for Vec<T> {
    const MIN_SIZE: usize = 4;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        r.vec()
    }
}

impl Encode for String {
    fn encode(&self, w: &mut Writer) {
        w.string(self);
    }
}

impl Decode for String {
    const MIN_SIZE: usize = 2;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        r.string()
    }
}

/// Implements [`Encode`] and [`Decode`] for a struct whose fields are encoded in order.
#[macro_export]
macro_rules! codec_struct {
    ($name:ident { $($field:ident : $ty:ty),* $(,)? }) => {
        impl $crate::codec::Encode for $name {
            fn encode(&self, w: &mut $crate::codec::Writer) {
                $( $crate::codec::Encode::encode(&self.$field, w); )*
            }
        }
        impl $crate::codec::Decode for $name {
            const MIN_SIZE: usize = 0 $(+ <$ty as $crate::codec::Decode>::MIN_SIZE)*;
            fn decode(r: &mut $crate::codec::Reader<'_>) -> Result<Self, $crate::codec::CodecError> {
                Ok(Self { $( $field: <$ty as $crate::codec::Decode>::decode(r)?, )* })
            }
        }
    };
}

/// Declares the enum behind a Go interface: one variant per registered type, written as the
/// type's u32 ID then its fields. Gives `type_id()`, `type_name()` (the Go type's name),
/// [`Encode`] and [`Decode`]; an unknown ID fails with [`CodecError::UnknownTypeId`] naming
/// `context`. `min` is the variant type with the fewest bytes.
#[macro_export]
macro_rules! codec_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($context:literal, min $min:ty) {
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) = $id:path, $go:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* #[doc = concat!("`", $go, "`")] $variant($ty), )*
        }

        impl $name {
            /// The codec type ID.
            pub fn type_id(&self) -> u32 {
                match self { $( $name::$variant(_) => $id, )* }
            }

            /// The Go type's name.
            pub fn type_name(&self) -> &'static str {
                match self { $( $name::$variant(_) => $go, )* }
            }
        }

        impl $crate::codec::Encode for $name {
            fn encode(&self, w: &mut $crate::codec::Writer) {
                w.u32(self.type_id());
                match self { $( $name::$variant(v) => $crate::codec::Encode::encode(v, w), )* }
            }
        }

        impl $crate::codec::Decode for $name {
            const MIN_SIZE: usize = 4 + <$min as $crate::codec::Decode>::MIN_SIZE;
            fn decode(r: &mut $crate::codec::Reader<'_>) -> Result<Self, $crate::codec::CodecError> {
                r.nested(|r| match r.u32()? {
                    $( $id => Ok($name::$variant(<$ty as $crate::codec::Decode>::decode(r)?)), )*
                    type_id => Err($crate::codec::CodecError::UnknownTypeId { type_id, context: $context }),
                })
            }
        }
    };
}

macro_rules! impl_fixed {
    ($t:ty, $read:ident, $write:ident, $size:expr) => {
        impl Encode for $t {
            fn encode(&self, w: &mut Writer) {
                w.$write(*self);
            }
        }
        impl Decode for $t {
            const MIN_SIZE: usize = $size;
            fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
                r.$read()
            }
        }
    };
}

impl_fixed!(u8, u8, u8, 1);
impl_fixed!(bool, bool, bool, 1);
impl_fixed!(u16, u16, u16, 2);
impl_fixed!(u32, u32, u32, 4);
impl_fixed!(u64, u64, u64, 8);

impl<const N: usize> Encode for [u8; N] {
    fn encode(&self, w: &mut Writer) {
        w.raw(self);
    }
}

impl<const N: usize> Decode for [u8; N] {
    const MIN_SIZE: usize = N;
    fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
        r.array()
    }
}

macro_rules! impl_id {
    ($t:ty, $n:expr) => {
        impl Encode for $t {
            fn encode(&self, w: &mut Writer) {
                w.raw(&self.0);
            }
        }
        impl Decode for $t {
            const MIN_SIZE: usize = $n;
            fn decode(r: &mut Reader<'_>) -> Result<Self, CodecError> {
                Ok(Self(r.array()?))
            }
        }
    };
}

impl_id!(crate::ids::Id, 32);
impl_id!(crate::ids::ShortId, 20);
impl_id!(crate::ids::NodeId, 20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_big_endian() {
        let mut w = Writer::new();
        w.u16(0x0102);
        w.u32(0x03040506);
        w.u64(0x0708090a0b0c0d0e);
        w.bool(true);
        assert_eq!(
            w.as_slice(),
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 1]
        );
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u16().unwrap(), 0x0102);
        assert_eq!(r.u32().unwrap(), 0x03040506);
        assert_eq!(r.u64().unwrap(), 0x0708090a0b0c0d0e);
        assert!(r.bool().unwrap());
        r.finish().unwrap();
    }

    #[test]
    fn hostile_lengths_fail_before_allocating() {
        // Claims four billion u64s in eight bytes.
        let bytes = [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
        let mut r = Reader::new(&bytes);
        assert_eq!(
            r.vec::<u64>(),
            Err(CodecError::SliceTooLong {
                count: u32::MAX,
                remaining: 4
            })
        );
        let mut r = Reader::new(&[0, 0, 0, 9, 1]);
        assert!(matches!(r.bytes(), Err(CodecError::SliceTooLong { .. })));
    }

    #[test]
    fn top_level_checks_version_trailing_bytes_and_size() {
        assert_eq!(from_bytes::<u32>(&[0, 0, 0, 0, 0, 7]), Ok(7));
        assert_eq!(
            from_bytes::<u32>(&[0, 1, 0, 0, 0, 7]),
            Err(CodecError::UnknownVersion(1))
        );
        assert_eq!(
            from_bytes::<u32>(&[0, 0, 0, 0, 0, 7, 9]),
            Err(CodecError::TrailingBytes(1))
        );
        let big = vec![0u8; MAX_SIZE + 1];
        assert!(matches!(
            from_bytes::<u32>(&big),
            Err(CodecError::TooLarge { .. })
        ));
        assert_eq!(
            from_bytes::<u32>(&[0, 0, 0]),
            Err(CodecError::UnexpectedEof {
                offset: 2,
                needed: 3
            })
        );
    }

    #[test]
    fn bools_must_be_zero_or_one() {
        assert_eq!(Reader::new(&[2]).bool(), Err(CodecError::InvalidBool(2)));
    }

    #[test]
    fn nesting_is_capped() {
        fn dive(r: &mut Reader<'_>, n: u32) -> Result<(), CodecError> {
            if n == 0 {
                Ok(())
            } else {
                r.nested(|r| dive(r, n - 1))
            }
        }
        let mut r = Reader::new(&[]);
        assert!(dive(&mut r, MAX_DEPTH).is_ok());
        assert_eq!(dive(&mut r, MAX_DEPTH + 1), Err(CodecError::TooDeep));
    }
}
