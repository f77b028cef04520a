//! A small checker of JSON values against the official OpenAPI file's schemas (`type`,
//! `required`, `enum`, `const`, `items`, `properties`, `additionalProperties`, `$ref`, `allOf`, `oneOf`/`anyOf`), as
//! strict as the official clients' validators: required fields, JSON types and closed enums.

use serde_json::Value;

/// The official Data API document, from `shared/` beside the repository, or `None` (the
/// caller prints that it skipped).
pub fn official() -> Option<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/openapi/data-api.openapi.json"
    );
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// The schema of the 200 (or 201) response of `method path` in `doc`.
pub fn response_schema<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let responses = &doc["paths"][path][method]["responses"];
    let ok = if responses.get("200").is_some() {
        &responses["200"]
    } else {
        &responses["201"]
    };
    &ok["content"]["application/json"]["schema"]
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/components/schemas/");
            resolve(doc, &doc["components"]["schemas"][name])
        }
        None => schema,
    }
}

/// Every problem of `value` against `schema`, with JSON paths.
pub fn check(doc: &Value, schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    let schema = resolve(doc, schema);
    // OpenAPI 3.0's `nullable: true` admits null whatever else the schema says (a nullable
    // `allOf` reference such as a validator's `geolocation`).
    if value.is_null() && schema["nullable"] == true {
        return;
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            check(doc, s, value, at, problems);
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let fits = options.iter().any(|s| {
                let mut p = Vec::new();
                check(doc, s, value, at, &mut p);
                p.is_empty()
            });
            if !fits {
                let mut first = Vec::new();
                if let Some(s) = options.first() {
                    check(doc, s, value, at, &mut first);
                }
                problems.push(format!("{at}: matches none of {key} (first: {first:?})"));
            }
        }
    }
    // A nullable enum (`type: [string, null]` with only strings listed) admits null, as
    // the official clients generated from the file read it (`tokenReputation`).
    let nullable = schema["type"]
        .as_array()
        .is_some_and(|ts| ts.iter().any(|t| t == "null"));
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
        && !(nullable && value.is_null())
    {
        problems.push(format!("{at}: {value} not in enum {allowed:?}"));
    }
    if let Some(c) = schema.get("const")
        && c != value
    {
        problems.push(format!("{at}: {value} is not the const {c}"));
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.is_empty() {
        let ok = types.iter().any(|t| match *t {
            "string" => value.is_string(),
            "number" => value.is_number(),
            "integer" => value.is_i64() || value.is_u64(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            "null" => value.is_null(),
            _ => true,
        });
        if !ok {
            problems.push(format!("{at}: {value} is not of type {types:?}"));
            return;
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, v) in list.iter().enumerate() {
            check(doc, items, v, &format!("{at}[{i}]"), problems);
        }
    }
    if let Some(obj) = value.as_object() {
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for r in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    problems.push(format!("{at}: missing required {r}"));
                }
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        if let Some(props) = props {
            for (k, s) in props {
                if let Some(v) = obj.get(k) {
                    check(doc, s, v, &format!("{at}.{k}"), problems);
                }
            }
        }
        if let Some(extra) = schema.get("additionalProperties").filter(|a| a.is_object()) {
            for (k, v) in obj {
                if props.is_none_or(|p| !p.contains_key(k)) {
                    check(doc, extra, v, &format!("{at}.{k}"), problems);
                }
            }
        }
    }
}

/// Asserts `value` is a valid 200 answer of `method path` in the official document.
#[track_caller]
pub fn assert_valid(doc: &Value, method: &str, path: &str, value: &Value) {
    let schema = response_schema(doc, method, path);
    assert!(!schema.is_null(), "no schema for {method} {path}");
    let mut problems = Vec::new();
    check(doc, schema, value, "$", &mut problems);
    assert!(
        problems.is_empty(),
        "{method} {path}: {problems:#?}\n{value:#}"
    );
}
