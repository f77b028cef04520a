//! JSON in RFC 8785 canonical form (JCS): object members sorted by the UTF-16 code units of
//! their names, no whitespace, strings escaped only where JSON requires (short forms for
//! `\b \t \n \f \r`, `\u00xx` in lower case for other control characters).
//!
//! A delivery's body is written this way and signed as sent, so a receiver that verifies the
//! raw bytes (`@avalanche-sdk/chainkit`'s `validateWebhook`) and one that parses and
//! canonicalizes first (the official documentation's example) compute the same HMAC.
//!
//! Numbers: integers are written exactly; a float with no fraction below 10^21 is written as
//! an integer, as ECMAScript does. Event bodies hold no other floats.

use serde::Serialize;
use serde_json::Value;

/// `value` as canonical JSON bytes.
pub fn to_vec<T: Serialize>(value: &T) -> serde_json::Result<Vec<u8>> {
    let value = serde_json::to_value(value)?;
    let mut out = Vec::with_capacity(256);
    write(&value, &mut out)?;
    Ok(out)
}

fn write(value: &Value, out: &mut Vec<u8>) -> serde_json::Result<()> {
    match value {
        Value::Null | Value::Bool(_) | Value::String(_) => serde_json::to_writer(out, value)?,
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => out.extend_from_slice(i.to_string().as_bytes()),
            (_, Some(u), _) => out.extend_from_slice(u.to_string().as_bytes()),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e21 => {
                // -0 is written 0, as ECMAScript does.
                let f = if f == 0.0 { 0.0 } else { f };
                out.extend_from_slice(format!("{f:.0}").as_bytes());
            }
            _ => serde_json::to_writer(out, n)?,
        },
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push(b'{');
            for (i, (name, item)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, name)?;
                out.push(b':');
                write(item, out)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canonical(v: &Value) -> String {
        String::from_utf8(to_vec(v).unwrap()).unwrap()
    }

    #[test]
    fn members_are_sorted_and_nothing_is_spaced() {
        let v = json!({"b": [1, {"z": null, "a": true}], "a": "x", "aa": -3, "B": 1.0});
        assert_eq!(
            canonical(&v),
            r#"{"B":1,"a":"x","aa":-3,"b":[1,{"a":true,"z":null}]}"#
        );
    }

    #[test]
    fn strings_escape_as_rfc_8785_says() {
        let v = json!({"s": "\u{8}\t\n\u{c}\r\u{1f}\"\\/é€😀\u{7f}"});
        assert_eq!(
            canonical(&v),
            "{\"s\":\"\\b\\t\\n\\f\\r\\u001f\\\"\\\\/é€😀\u{7f}\"}"
        );
    }

    #[test]
    fn names_sort_by_utf16_code_units() {
        // U+E000 sorts after U+1F600 by code point, before it by UTF-16 code units (a
        // surrogate pair starts with 0xD83D).
        let v = json!({"\u{e000}": 1, "😀": 2});
        assert_eq!(canonical(&v), "{\"😀\":2,\"\u{e000}\":1}");
    }

    #[test]
    fn the_rfc_example_numbers_that_events_can_hold() {
        let v = json!([0, -0.0, 1e3, 9007199254740991u64, u64::MAX, i64::MIN]);
        assert_eq!(
            canonical(&v),
            "[0,0,1000,9007199254740991,18446744073709551615,-9223372036854775808]"
        );
    }
}
