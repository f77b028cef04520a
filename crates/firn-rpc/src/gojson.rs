//! What Go's `encoding/json` does that serde does not, kept in one place: HTML-safe output,
//! compacted raw messages, `%q` quoting, case-insensitive key matching and reading the top-level
//! members of an object without decoding their values.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// Rewrites serialized JSON the way Go's encoder writes strings: `<`, `>`, `&`, U+2028 and
/// U+2029 become `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`. Those bytes only occur
/// inside strings in valid JSON, so a byte-level pass is exact.
pub(crate) fn escape_html(json: Vec<u8>) -> Vec<u8> {
    // memchr's vectorised scans: most responses (hex, numbers) need no rewriting at all.
    let needs =
        memchr::memchr3(b'<', b'>', b'&', &json).is_some() || memchr::memchr(0xE2, &json).is_some();
    if !needs {
        return json;
    }
    let mut out = Vec::with_capacity(json.len() + 16);
    let mut i = 0;
    while i < json.len() {
        let b = json[i];
        match b {
            b'<' => out.extend_from_slice(br"\u003c"),
            b'>' => out.extend_from_slice(br"\u003e"),
            b'&' => out.extend_from_slice(br"\u0026"),
            0xE2 if json.get(i + 1) == Some(&0x80)
                && matches!(json.get(i + 2), Some(0xA8) | Some(0xA9)) =>
            {
                let last = json.get(i + 2).copied().unwrap_or(0xA8);
                out.extend_from_slice(if last == 0xA8 { br"\u2028" } else { br"\u2029" });
                i += 2;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    out
}

/// Removes insignificant whitespace from valid JSON text, keeping every other byte (numbers are
/// not reformatted), as Go does when it re-encodes a `json.RawMessage`.
pub(crate) fn compact(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in raw.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

/// Quotes a string as Go's `%q` verb does (`strconv.Quote`).
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                if (c as u32) < 0x10000 {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go matches object keys to struct fields ignoring case (Unicode simple folding); this is the
/// same test for the keys firn meets (ASCII and simple Unicode letters).
pub(crate) fn fold_eq(a: &str, b: &str) -> bool {
    if a.len() == b.len() && a.eq_ignore_ascii_case(b) {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return false;
    }
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

/// Which kind of JSON value a raw value is, in Go's words (`json: cannot unmarshal <kind> …`).
pub(crate) fn kind(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't') | Some(b'f') => "bool",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// The top level of a JSON document: an object's members as raw values (in order, duplicates
/// kept), or the kind of the non-object value that was found instead.
#[derive(Debug)]
pub(crate) enum TopLevel<'a> {
    /// A JSON object.
    Object(Vec<(String, &'a RawValue)>),
    /// Something else; the Go name of its kind (`array`, `string`, `number`, `bool`, `null`).
    Other(&'static str),
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Vec<(String, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value: &'de RawValue = map.next_value()?;
            members.push((key, value));
        }
        Ok(members)
    }
}

/// Reads the first JSON value of `text` (trailing bytes are ignored, as Go's `Decoder` does).
pub(crate) fn top_level(text: &str) -> Result<TopLevel<'_>, serde_json::Error> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    let first = match stream.next() {
        Some(r) => r?,
        None => return Err(de::Error::custom("EOF")),
    };
    if kind(first) != "object" {
        return Ok(TopLevel::Other(kind(first)));
    }
    let mut de = serde_json::Deserializer::from_str(first.get());
    let members = (&mut de).deserialize_map(MembersVisitor)?;
    Ok(TopLevel::Object(members))
}

/// Go's wording of a decoder error, for the `-32700` message of the AvalancheGo envelope.
pub(crate) fn go_syntax_message(text: &str, err: &serde_json::Error) -> String {
    if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return "EOF".to_owned();
    }
    if err.is_eof() {
        return "unexpected EOF".to_owned();
    }
    // serde reports the line and column of the offending character; Go names the character.
    let line = text.lines().nth(err.line().saturating_sub(1)).unwrap_or("");
    let c = line
        .chars()
        .nth(err.column().saturating_sub(1))
        .unwrap_or(' ');
    format!(
        "invalid character {} looking for beginning of value",
        go_char(c)
    )
}

fn go_char(c: char) -> String {
    match c {
        '\'' => r"'\''".to_owned(),
        '"' => r#"'"'"#.to_owned(),
        c if c.is_control() => format!("'\\x{:02x}'", c as u32),
        c => format!("'{c}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_escaped_like_go() {
        let out = escape_html(br#"{"a":"<b>&\u2028 </b>","c":"x"}"#.to_vec());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":"\u003cb\u003e\u0026\u2028 \u003c/b\u003e","c":"x"}"#
        );
        let raw = "\"\u{2028}\u{2029}€\"".as_bytes().to_vec();
        assert_eq!(
            String::from_utf8(escape_html(raw)).unwrap(),
            "\"\\u2028\\u2029€\""
        );
    }

    #[test]
    fn compact_keeps_strings_and_numbers() {
        assert_eq!(
            compact("{ \"a b\" : [ 1.50 , \"x \\\" y\" ] }\n"),
            r#"{"a b":[1.50,"x \" y"]}"#
        );
    }

    #[test]
    fn quote_matches_go() {
        assert_eq!(go_quote("platform.GetFoo"), r#""platform.GetFoo""#);
        assert_eq!(go_quote("a\"b\\c\n\u{1}"), r#""a\"b\\c\n\x01""#);
        assert_eq!(go_quote("é"), "\"é\"");
    }

    #[test]
    fn folding_is_case_insensitive() {
        assert!(fold_eq("blockID", "BLOCKid"));
        assert!(fold_eq("Ä", "ä"));
        assert!(!fold_eq("height", "heights"));
    }

    #[test]
    fn top_level_reads_members_in_order() {
        let text = r#"{"b":1,"a":{"x":[1]},"b":"2"} trailing"#;
        let TopLevel::Object(m) = top_level(text).unwrap() else {
            panic!("not an object")
        };
        let keys: Vec<_> = m.iter().map(|(k, v)| (k.as_str(), v.get())).collect();
        assert_eq!(keys, [("b", "1"), ("a", r#"{"x":[1]}"#), ("b", "\"2\"")]);
        assert!(matches!(
            top_level("[1]").unwrap(),
            TopLevel::Other("array")
        ));
        assert!(matches!(
            top_level(" 5").unwrap(),
            TopLevel::Other("number")
        ));
    }

    #[test]
    fn syntax_messages() {
        let e = top_level("").unwrap_err();
        assert_eq!(go_syntax_message("", &e), "EOF");
        let e = top_level("{\"a\":").unwrap_err();
        assert_eq!(go_syntax_message("{\"a\":", &e), "unexpected EOF");
        let e = top_level("xyz").unwrap_err();
        assert_eq!(
            go_syntax_message("xyz", &e),
            "invalid character 'x' looking for beginning of value"
        );
    }
}
