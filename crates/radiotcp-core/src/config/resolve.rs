//! A partial scenario document resolved against the one declaration of every key.
//!
//! The configuration types of this module's parent are the schema: their fields give the key
//! names, types and help text (doc comments), their `Default` impls the defaults, and
//! [`config_schema`] exports all of it as JSON Schema (schemars). A user's document names only
//! what it changes; [`resolve`] walks it against that schema, fills in every default, applies
//! the TCP profile's defaults to the `tcp` keys it leaves out, and reports every problem of the
//! document at once: unknown keys (with the closest known one), wrong types, values outside a
//! choice, then the bounds and cross-checks of [`ScenarioConfig::problems`].

use serde_json::{Map, Value};

use super::{ScenarioConfig, TcpConfig, TcpProfile};
use crate::error::ConfigError;

/// The JSON Schema (draft 2020-12) of a scenario document: every key with its type, default,
/// allowed values and help text, in declaration order.
pub fn config_schema() -> Value {
    schema().clone()
}

fn schema() -> &'static Value {
    static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        serde_json::to_value(schemars::schema_for!(ScenarioConfig)).expect("a schema is JSON")
    })
}

/// The scenario a partial JSON document describes, every key it leaves out at its default; or
/// every problem of the document.
pub fn resolve(doc: &Value) -> Result<ScenarioConfig, Vec<ConfigError>> {
    let schema = schema();
    let mut w = Walker::new(schema, true);
    let resolved = w.value(doc, schema, "", None);
    let mut problems = std::mem::take(&mut w.problems);
    let Some(resolved) = resolved.filter(|_| !w.broken) else {
        return Err(problems);
    };
    let cfg: ScenarioConfig = match serde_json::from_value(resolved.clone()) {
        Ok(c) => c,
        Err(e) => {
            problems.push(ConfigError::new("<document>", "", e.to_string()));
            return Err(problems);
        }
    };
    let known: std::collections::HashSet<String> = problems.iter().map(|p| p.key.clone()).collect();
    for mut p in cfg.problems() {
        if known.contains(&p.key) {
            continue;
        }
        // The value as the document writes it (an integer stays one), where it is a scalar.
        if let Some(v) = w.clamped.get(&p.key) {
            p.value = shown(v);
        } else if let Some(v) =
            lookup(&resolved, &p.key).filter(|v| !v.is_array() && !v.is_object())
        {
            p.value = shown(v);
        }
        problems.push(p);
    }
    // An integer beyond its type that no check of its own caught.
    for (key, (v, allowed)) in std::mem::take(&mut w.out_of_range) {
        if !problems.iter().any(|p| p.key == key) {
            problems.push(ConfigError::new(key, shown(&v), allowed));
        }
    }
    if problems.is_empty() {
        Ok(cfg)
    } else {
        Err(problems)
    }
}

/// `doc` with every key it leaves out at its default, nothing checked: unknown keys and wrong
/// values stay as they are (the `--set` overrides are applied to this, then [`resolve`]d).
pub fn fill_defaults(doc: &Value) -> Value {
    let schema = schema();
    let mut w = Walker::new(schema, false);
    w.value(doc, schema, "", None)
        .unwrap_or_else(|| doc.clone())
}

/// The value at a dotted key path (list elements by index).
fn lookup<'a>(doc: &'a Value, key: &str) -> Option<&'a Value> {
    key.split('.').try_fold(doc, |v, part| match v {
        Value::Object(m) => m.get(part),
        Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

/// An error message shows at most this much of a value, and tables / lists this deep.
const VALUE_SHOWN_CHARS: usize = 120;
const VALUE_SHOWN_DEPTH: usize = 4;

/// A value as TOML would write it (strings quoted), shortened for an error message.
pub fn shown(v: &Value) -> String {
    let text = shown_at(v, VALUE_SHOWN_DEPTH);
    if text.chars().count() > VALUE_SHOWN_CHARS {
        let cut: String = text.chars().take(VALUE_SHOWN_CHARS - 3).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn shown_at(v: &Value, depth: usize) -> String {
    match v {
        Value::Object(_) if depth == 0 => "{...}".into(),
        Value::Array(_) if depth == 0 => "[...]".into(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => Value::String(s.clone()).to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => float_text(f),
            _ => n.to_string(),
        },
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(|x| shown_at(x, depth - 1)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, x)| format!("{k} = {}", shown_at(x, depth - 1)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A float as Python's `repr` writes it: `60.0`, `0.5`, `1e-09`, `1.5e+20`.
fn float_text(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = f.abs();
    if a == 0.0 || (1e-4..1e16).contains(&a) {
        let s = f.to_string();
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let s = format!("{f:e}");
        let (mant, exp) = s.split_once('e').expect("scientific notation");
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        format!("{mant}e{sign}{digits:0>2}")
    }
}

/// "one of 'a', 'b' or 'c'"
fn one_of(choices: &[String]) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("one of {} or {last}", rest.join(", "))
        }
        _ => format!("one of {}", quoted.join(", ")),
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn is_null_schema(s: &Value) -> bool {
    s.get("type").and_then(Value::as_str) == Some("null")
}

/// The string values of a choice (`enum`, or `oneOf` of `const`s when the values have help), in
/// declaration order.
fn string_choices(s: &Value) -> Option<Vec<String>> {
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>();
    }
    // With help on some values, schemars writes each of those as a `const` and the rest as
    // one `enum`.
    let one = s.get("oneOf").and_then(Value::as_array)?;
    let mut out = Vec::new();
    for v in one {
        match (v.get("const"), v.get("enum").and_then(Value::as_array)) {
            (Some(c), _) => out.push(c.as_str()?.to_string()),
            (None, Some(e)) => {
                for x in e {
                    out.push(x.as_str()?.to_string());
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The kinds of a tagged choice (`oneOf` of tables with a `kind` constant) with their schemas.
fn tagged_variants(s: &Value) -> Option<Vec<(String, &Value)>> {
    let one = s.get("oneOf").and_then(Value::as_array)?;
    one.iter()
        .map(|v| {
            let kind = v.pointer("/properties/kind/const")?.as_str()?;
            Some((kind.to_string(), v))
        })
        .collect()
}

struct Walker<'a> {
    defs: Option<&'a Map<String, Value>>,
    /// Report problems and drop unknown keys (else keep every key and value as written).
    strict: bool,
    problems: Vec<ConfigError>,
    /// A problem left a value without a default to stand in for it: the cross-checks of the
    /// whole configuration cannot run.
    broken: bool,
    /// Integers beyond their type (a negative count, 2^64), read as the nearest value of the
    /// type so that the key's own check names its range: key -> (the value as written, the
    /// type's range).
    out_of_range: Vec<(String, (Value, String))>,
    /// The same values by key, to show them as written.
    clamped: std::collections::HashMap<String, Value>,
}

impl<'a> Walker<'a> {
    fn new(root: &'a Value, strict: bool) -> Self {
        Self {
            defs: root.get("$defs").and_then(Value::as_object),
            strict,
            problems: Vec::new(),
            broken: false,
            out_of_range: Vec::new(),
            clamped: std::collections::HashMap::new(),
        }
    }

    /// The schema a `$ref` points to (and the name of its definition).
    fn deref(&self, s: &'a Value) -> (&'a Value, Option<&'a str>) {
        let mut s = s;
        let mut name = None;
        while let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let n = r.trim_start_matches("#/$defs/");
            match self.defs.and_then(|d| d.get(n)) {
                Some(t) => {
                    s = t;
                    name = Some(n);
                }
                None => break,
            }
        }
        (s, name)
    }

    fn problem(&mut self, key: &str, v: &Value, allowed: impl Into<String>) -> Option<Value> {
        if self.strict {
            self.problems
                .push(ConfigError::new(key_or_document(key), shown(v), allowed));
        }
        None
    }

    /// `v` resolved against `s` at `path`; None after a problem (strict) or a value the schema
    /// cannot read (lenient: the caller keeps it as written).
    fn value(
        &mut self,
        v: &Value,
        s: &'a Value,
        path: &str,
        siblings: Option<&[(String, &'a Value)]>,
    ) -> Option<Value> {
        let (t, def) = self.deref(s);
        if let Some(any) = t.get("anyOf").and_then(Value::as_array) {
            if v.is_null() && any.iter().any(is_null_schema) {
                return Some(Value::Null);
            }
            let inner = any.iter().find(|x| !is_null_schema(x))?;
            return self.value(v, inner, path, siblings);
        }
        if let Some(variants) = tagged_variants(t) {
            return self.tagged(v, &variants, path);
        }
        if let Some(choices) = string_choices(t) {
            return match v.as_str() {
                Some(x) if choices.iter().any(|c| c == x) => Some(v.clone()),
                _ => self.problem(path, v, one_of(&choices)),
            };
        }
        let types: Vec<&str> = match t.get("type") {
            Some(Value::String(x)) => vec![x.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if v.is_null() && types.contains(&"null") {
            return Some(Value::Null);
        }
        match types.iter().copied().find(|&x| x != "null") {
            Some("object") => self.object(v, t, def, path, siblings),
            Some("array") => self.array(v, t, path),
            Some("number") => match v {
                Value::Number(_) => Some(v.clone()),
                _ => self.problem(path, v, "a number"),
            },
            Some("integer") => self.integer(v, t, path),
            Some("boolean") => match v {
                Value::Bool(_) => Some(v.clone()),
                _ => self.problem(path, v, "true or false"),
            },
            Some("string") => match v {
                Value::String(_) => Some(v.clone()),
                _ => self.problem(path, v, "a string"),
            },
            _ => Some(v.clone()),
        }
    }

    fn integer(&mut self, v: &Value, t: &Value, path: &str) -> Option<Value> {
        let Value::Number(n) = v else {
            return self.problem(path, v, "an integer");
        };
        let (lo, hi) = match t.get("format").and_then(Value::as_str) {
            Some("uint8") => (0, u8::MAX as u64),
            Some("uint16") => (0, u16::MAX as u64),
            Some("uint32") => (0, u32::MAX as u64),
            _ => (0, u64::MAX),
        };
        let nearest = match n.as_u64() {
            Some(x) if (lo..=hi).contains(&x) => return Some(v.clone()),
            Some(_) => hi,
            None if n.is_i64() => lo,
            // Beyond 64 bits (serde_json reads such an integer as a float); any other float is
            // not an integer.
            None => match n.as_f64() {
                Some(f) if f.abs() >= 9.2e18 => {
                    if f > 0.0 {
                        hi
                    } else {
                        lo
                    }
                }
                _ => return self.problem(path, v, "an integer"),
            },
        };
        if !self.strict {
            return Some(v.clone());
        }
        let allowed = format!("an integer in {lo}..={hi}");
        self.out_of_range
            .push((path.to_string(), (v.clone(), allowed)));
        self.clamped.insert(path.to_string(), v.clone());
        Some(Value::from(nearest))
    }

    fn array(&mut self, v: &Value, t: &'a Value, path: &str) -> Option<Value> {
        let Value::Array(items) = v else {
            return self.problem(path, v, "a list");
        };
        let min = t.get("minItems").and_then(Value::as_u64);
        let max = t.get("maxItems").and_then(Value::as_u64);
        let n = items.len() as u64;
        if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
            let allowed = match (min, max) {
                (Some(a), Some(b)) if a == b => format!("a list of {a} items"),
                (Some(a), _) if n < a => format!("at least {a} item(s)"),
                (_, Some(b)) => format!("at most {b} item(s)"),
                _ => "a list".into(),
            };
            self.problem(path, v, allowed);
            self.broken |= self.strict;
            return if self.strict { None } else { Some(v.clone()) };
        }
        let Some(item) = t.get("items") else {
            return Some(v.clone());
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, x) in items.iter().enumerate() {
            match self.value(x, item, &join(path, &i.to_string()), None) {
                Some(r) => out.push(r),
                None if self.strict => {
                    // A list element has no default to stand in for it.
                    self.broken = true;
                    out.push(x.clone());
                }
                None => out.push(x.clone()),
            }
        }
        Some(Value::Array(out))
    }

    fn tagged(&mut self, v: &Value, variants: &[(String, &'a Value)], path: &str) -> Option<Value> {
        let Value::Object(m) = v else {
            return self.problem(path, v, "a table");
        };
        let kinds: Vec<String> = variants.iter().map(|(k, _)| k.clone()).collect();
        let given = m
            .get("kind")
            .cloned()
            .unwrap_or(Value::String(kinds[0].clone()));
        let Some((_, schema)) = variants
            .iter()
            .find(|(k, _)| given.as_str() == Some(k.as_str()))
        else {
            self.problem(&join(path, "kind"), &given, one_of(&kinds));
            return None;
        };
        let mut with_kind = m.clone();
        with_kind.insert("kind".into(), given);
        self.object(
            &Value::Object(with_kind),
            schema,
            None,
            path,
            Some(variants),
        )
    }

    fn object(
        &mut self,
        v: &Value,
        t: &'a Value,
        def: Option<&str>,
        path: &str,
        siblings: Option<&[(String, &'a Value)]>,
    ) -> Option<Value> {
        let Value::Object(m) = v else {
            return self.problem(path, v, "a table");
        };
        let Some(props) = t.get("properties").and_then(Value::as_object) else {
            return Some(v.clone());
        };
        // A TCP profile gives the defaults of the tcp keys the table leaves out.
        let profile_defaults = (def == Some("TcpConfig"))
            .then(|| {
                m.get("profile")
                    .cloned()
                    .unwrap_or(Value::String("rfc".into()))
            })
            .and_then(|p| serde_json::from_value::<TcpProfile>(p).ok())
            .map(|p| serde_json::to_value(TcpConfig::profile_defaults(p)).expect("JSON"));
        for (k, x) in m {
            if !props.contains_key(k) && self.strict {
                let e = self.unknown_key(path, k, x, props, siblings);
                self.problems.push(e);
            }
        }
        let mut out = Map::new();
        for (name, ps) in props {
            let here = join(path, name);
            let default = profile_defaults
                .as_ref()
                .and_then(|d| d.get(name))
                .or_else(|| ps.get("default"))
                .or_else(|| ps.get("const"));
            let r = match m.get(name) {
                Some(x) => match self.value(x, ps, &here, None) {
                    Some(r) => Some(r),
                    None if self.strict => {
                        if default.is_none() {
                            self.broken = true;
                        }
                        default.cloned()
                    }
                    None => Some(x.clone()),
                },
                None => match default {
                    Some(d) => Some(d.clone()),
                    None => {
                        // Every key has a default (`#[serde(default)]`): none is a schema bug.
                        if self.strict {
                            self.problems.push(ConfigError::new(
                                here.clone(),
                                "",
                                "required key is missing",
                            ));
                            self.broken = true;
                        }
                        None
                    }
                },
            };
            if let Some(r) = r {
                out.insert(name.clone(), r);
            }
        }
        if !self.strict {
            for (k, x) in m {
                if !props.contains_key(k) {
                    out.insert(k.clone(), x.clone());
                }
            }
        }
        Some(Value::Object(out))
    }

    /// An unknown key `name` in the table at `path`: the closest known key, or the kind that
    /// has it, and the keys the table has.
    fn unknown_key(
        &self,
        path: &str,
        name: &str,
        v: &Value,
        props: &Map<String, Value>,
        siblings: Option<&[(String, &'a Value)]>,
    ) -> ConfigError {
        let keys: Vec<&str> = props.keys().map(String::as_str).collect();
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}.")
        };
        let mut hint = closest(name, &keys)
            .map(|c| format!("did you mean {prefix}{c}? "))
            .unwrap_or_default();
        let kind = props
            .get("kind")
            .and_then(|k| k.get("const"))
            .and_then(Value::as_str);
        if let (Some(siblings), Some(kind)) = (siblings, kind) {
            let others: Vec<String> = siblings
                .iter()
                .filter(|(k, s)| {
                    k != kind && s.pointer("/properties").and_then(|p| p.get(name)).is_some()
                })
                .map(|(k, _)| format!("{k:?}"))
                .collect();
            if !others.is_empty() {
                hint = format!(
                    "a key of {path}.kind = {} (set that kind first); ",
                    others.join(" or ")
                );
            }
        }
        let mut scope = if path.is_empty() {
            "at the top level".to_string()
        } else {
            format!("under {path}")
        };
        if let Some(kind) = kind {
            scope += &format!(" (kind = {kind:?})");
        }
        ConfigError {
            key: join(path, name),
            value: shown(v),
            allowed: format!("{hint}keys {scope}: {}", keys.join(", ")),
            unknown_key: true,
        }
    }
}

fn key_or_document(key: &str) -> &str {
    if key.is_empty() {
        "<document>"
    } else {
        key
    }
}

/// The known key closest to `name`, if any is close (a typo, a missing letter).
fn closest<'k>(name: &str, keys: &[&'k str]) -> Option<&'k str> {
    keys.iter()
        .map(|k| (strsim::normalized_damerau_levenshtein(name, k), *k))
        .filter(|(score, _)| *score >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(doc: Value) -> Vec<String> {
        resolve(&doc)
            .unwrap_err()
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn an_empty_document_is_the_default_scenario() {
        assert_eq!(resolve(&json!({})).unwrap(), ScenarioConfig::default());
    }

    #[test]
    fn every_problem_of_a_document_is_reported() {
        let p = problems(json!({
            "simulation": {"duration_s": "x"},
            "links": [{"name": "a", "rate_kbps": -1}],
            "tcp": {"varient": "reno"},
            "flows": {"count": "abc"},
        }));
        assert_eq!(p.len(), 4, "{p:?}");
        assert_eq!(p[0], "simulation.duration_s = \"x\": expected a number");
        assert!(
            p.iter()
                .any(|l| l
                    .starts_with("tcp.varient = \"reno\": unknown key; did you mean tcp.variant?")),
            "{p:?}"
        );
        assert!(p
            .iter()
            .any(|l| l.starts_with("flows.count = \"abc\": expected an integer")));
        assert!(
            p.iter()
                .any(|l| l.starts_with("links.0.rate_kbps = -1: expected a rate in")),
            "{p:?}"
        );
    }

    #[test]
    fn choices_list_what_is_allowed() {
        let p = problems(json!({"tcp": {"variant": "cubic"}}));
        assert_eq!(
            p,
            ["tcp.variant = \"cubic\": expected one of 'reno', 'newreno' or 'sack'"]
        );
        let p = problems(json!({"access": {"kind": "wifi"}}));
        assert_eq!(
            p,
            ["access.kind = \"wifi\": expected one of 'wired', 'umts', 'rlp', 'lte' or 'nr'"]
        );
    }

    #[test]
    fn a_key_of_another_kind_says_which_kind_has_it() {
        let p = problems(json!({"access": {"tti_ms": 10}}));
        assert_eq!(p.len(), 1);
        assert!(
            p[0].contains("a key of access.kind = \"umts\" (set that kind first)"),
            "{p:?}"
        );
    }

    #[test]
    fn the_profile_gives_the_defaults_of_the_tcp_keys_left_out() {
        let cfg = resolve(&json!({"tcp": {"profile": "linux", "prr": false}})).unwrap();
        let linux = TcpConfig::profile_defaults(TcpProfile::Linux);
        assert_eq!(
            cfg.tcp,
            TcpConfig {
                prr: false,
                ..linux
            }
        );
    }

    #[test]
    fn a_kind_takes_its_own_defaults() {
        let cfg = resolve(&json!({"access": {"kind": "lte", "buffer": {}}})).unwrap();
        // A table given (even empty) takes its type's defaults.
        assert_eq!(cfg.access.lte().unwrap().buffer.limit_sdus, 50);
        let cfg = resolve(&json!({"access": {"kind": "lte"}})).unwrap();
        assert_eq!(cfg.access.lte().unwrap().buffer.limit_sdus, 1000);
    }

    #[test]
    fn bounds_and_cross_checks_come_with_the_value_as_written() {
        let p = problems(json!({"simulation": {"warmup_s": 60}, "flows": {"count": 0}}));
        assert_eq!(
            p,
            [
                "simulation.warmup_s = 60: expected less than simulation.duration_s",
                "flows.count = 0: expected an integer in 1..=10000",
            ]
        );
    }

    #[test]
    fn an_integer_beyond_its_type_is_named_by_the_keys_own_range() {
        let p = problems(json!({"flows": {"count": -1}}));
        assert_eq!(p, ["flows.count = -1: expected an integer in 1..=10000"]);
        let p = problems(json!({"access": {"kind": "rlp", "idle_frames": -1}}));
        assert_eq!(
            p,
            ["access.idle_frames = -1: expected an integer in 0..=4294967295"]
        );
        let p = problems(json!({"flows": {"count": 2.0}}));
        assert_eq!(p, ["flows.count = 2.0: expected an integer"]);
    }

    #[test]
    fn fill_defaults_keeps_what_it_cannot_read() {
        let doc = fill_defaults(&json!({"tcp": {"varient": 1, "rwnd_bytes": "x"}}));
        assert_eq!(doc["tcp"]["varient"], json!(1));
        assert_eq!(doc["tcp"]["rwnd_bytes"], json!("x"));
        assert_eq!(doc["tcp"]["variant"], json!("newreno"));
        assert_eq!(doc["links"][1]["name"], json!("access"));
    }

    #[test]
    fn floats_are_written_as_python_writes_them() {
        assert_eq!(float_text(60.0), "60.0");
        assert_eq!(float_text(1e-9), "1e-09");
        assert_eq!(float_text(1.5e20), "1.5e+20");
        assert_eq!(float_text(0.001), "0.001");
    }

    #[test]
    fn the_schema_has_help_and_defaults() {
        let s = config_schema();
        let tcp = &s["$defs"]["TcpConfig"]["properties"];
        assert!(tcp["variant"]["description"]
            .as_str()
            .unwrap()
            .contains("RFC 6582"));
        assert_eq!(tcp["rwnd_bytes"]["default"], json!(65535));
    }
}
