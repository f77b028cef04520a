//! Go `encoding/json` semantics for decoding parameters onto serde types.
//!
//! AvalancheGo decodes `params` with Go's `encoding/json`, and clients rely on what it allows:
//! object keys match struct fields **case-insensitively** (an exact match wins, otherwise the
//! case-folded one; the last duplicate wins), unknown keys are ignored, and `null` leaves a field
//! at its zero value. [`from_value`] gives any `#[derive(Deserialize)]` struct those rules, in
//! nested structs, sequences and maps too. Mark params structs `#[serde(default)]` so that absent
//! fields take their zero values, as they do in Go.
//!
//! ```
//! #[derive(serde::Deserialize, Default, Debug, PartialEq)]
//! #[serde(default, rename_all = "camelCase")]
//! struct Args { block_id: String, encoding: String }
//!
//! let v = serde_json::json!({"BLOCKID": "abc", "encoding": "hex", "extra": 1});
//! let args: Args = firn_rpc::params::from_value(v).unwrap();
//! assert_eq!(args, Args { block_id: "abc".into(), encoding: "hex".into() });
//! ```

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};
use serde_json::{Map, Value};

use crate::gojson::fold_eq;

/// Decodes `value` into `T` with Go's rules (see the module docs).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
    T::deserialize(GoValue(value))
}

/// Parses `text` and decodes it into `T` with Go's rules (see the module docs).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    from_value(serde_json::from_str(text)?)
}

/// A JSON value that deserializes with Go's rules.
#[derive(Debug)]
struct GoValue(Value);

/// Renames an object's keys onto `fields` (exact match first, then case-folded), drops `null`
/// members and lets the last of several keys for one field win.
fn fold_keys(object: Map<String, Value>, fields: &'static [&'static str]) -> Map<String, Value> {
    let mut out = Map::with_capacity(object.len());
    for (key, value) in object {
        if value.is_null() {
            continue;
        }
        let name = if fields.contains(&key.as_str()) {
            key
        } else {
            match fields.iter().find(|f| fold_eq(f, &key)) {
                Some(f) => (*f).to_owned(),
                None => key,
            }
        };
        out.insert(name, value);
    }
    out
}

struct GoSeq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for GoSeq {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        match self.0.next() {
            Some(v) => seed.deserialize(GoValue(v)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct GoMap {
    iter: <Map<String, Value> as IntoIterator>::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for GoMap {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                let key: de::value::StringDeserializer<serde_json::Error> = k.into_deserializer();
                seed.deserialize(key).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let v = self.value.take().unwrap_or(Value::Null);
        seed.deserialize(GoValue(v))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

fn visit_map<'de, V: Visitor<'de>>(
    map: Map<String, Value>,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    visitor.visit_map(GoMap {
        iter: map.into_iter(),
        value: None,
    })
}

fn visit_seq<'de, V: Visitor<'de>>(
    seq: Vec<Value>,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    visitor.visit_seq(GoSeq(seq.into_iter()))
}

macro_rules! forward_to_value {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
                self.0.$method(visitor)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for GoValue {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(a) => visit_seq(a, visitor),
            Value::Object(o) => visit_map(o, visitor),
            other => other.deserialize_any(visitor),
        }
    }

    forward_to_value! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_identifier
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(GoValue(other)),
        }
    }

    /// Go's `struct{}` accepts any object (and `null`).
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null | Value::Object(_) => visitor.visit_unit(),
            other => other.deserialize_unit(visitor),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(a) => visit_seq(a, visitor),
            Value::Null => visit_seq(Vec::new(), visitor),
            other => other.deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(o) => visit_map(o, visitor),
            Value::Null => visit_map(Map::new(), visitor),
            other => other.deserialize_map(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(o) => visit_map(fold_keys(o, fields), visitor),
            // Go never fills a struct from an array.
            Value::Array(_) => Err(de::Error::invalid_type(de::Unexpected::Seq, &visitor)),
            other => other.deserialize_struct(name, fields, visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, Default, Debug, PartialEq)]
    #[serde(default, rename_all = "camelCase")]
    struct Inner {
        node_id: String,
    }

    #[derive(Deserialize, Default, Debug, PartialEq)]
    #[serde(default, rename_all = "camelCase")]
    struct Args {
        subnet_id: String,
        node_ids: Vec<String>,
        inner: Vec<Inner>,
        limit: Option<u32>,
    }

    #[test]
    fn keys_fold_in_nested_values() {
        let a: Args = from_value(json!({
            "SUBNETID": "s", "nodeids": ["a"], "Inner": [{"NodeId": "n"}], "LIMIT": 3
        }))
        .unwrap();
        assert_eq!(
            a,
            Args {
                subnet_id: "s".into(),
                node_ids: vec!["a".into()],
                inner: vec![Inner {
                    node_id: "n".into()
                }],
                limit: Some(3),
            }
        );
    }

    #[test]
    fn exact_match_wins_and_last_duplicate_wins() {
        let a: Args = from_str(r#"{"subnetid":"x","subnetId":"y","SubnetID":"z"}"#).unwrap();
        assert_eq!(a.subnet_id, "z");
    }

    #[test]
    fn nulls_and_absence_are_zero() {
        let a: Args = from_value(json!({"subnetID": null, "limit": null})).unwrap();
        assert_eq!(a, Args::default());
        let a: Args = from_value(json!({})).unwrap();
        assert_eq!(a, Args::default());
    }

    #[test]
    fn wrong_types_are_errors() {
        assert!(from_value::<Args>(json!({"subnetID": 5})).is_err());
        assert!(from_value::<Args>(json!(["x"])).is_err());
        assert!(from_value::<Args>(json!("x")).is_err());
    }

    #[test]
    fn unit_accepts_any_object() {
        from_value::<()>(json!({"a": 1})).unwrap();
        from_value::<()>(Value::Null).unwrap();
    }
}
