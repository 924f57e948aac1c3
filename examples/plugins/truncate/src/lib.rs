//! truncate: an mcphost transform_result plugin that caps the text of tool
//! results by bytes and/or lines, ending the cut text with a marker such as
//! `[truncated: kept 4055 of 120000 bytes]`.
//!
//! The texts of a result (text items and embedded resource text, in order)
//! share one budget; the item where it runs out is cut (never inside a UTF-8
//! character) and carries the marker, text items after it are dropped, and
//! non-text items (images, audio, resource links) are kept. The marker counts
//! against the caps, so a truncated result stays within them and truncating
//! again changes nothing.
//!
//! Configuration:
//! - `max_bytes`: byte cap (default 4096; 0 = no byte cap; otherwise at least
//!   128 so the marker fits);
//! - `max_lines`: line cap (default none; 0 = none);
//! - `structured_content`: `keep` (default: left alone), `strings` (each
//!   string value is capped on its own, so the structure stays valid) or
//!   `drop` (removed when its JSON exceeds `max_bytes`).
//!
//! Unlike mcphost's built-in truncation stage, a plugin cannot keep the full
//! result for later reading; the marker names no resource.

mod cut;

pub use cut::{count_lines, truncate_texts, Cut, Limits};
use mcphost_pdk::{
    config, content, log, Error, Level, TransformResultRequest, TransformResultResponse, Value,
};

/// The smallest non-zero `max_bytes`: room for the marker and some text.
const MIN_MAX_BYTES: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structured {
    Keep,
    Strings,
    Drop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub limits: Limits,
    pub structured: Structured,
}

impl Settings {
    pub fn from_config() -> Result<Settings, Error> {
        let max_bytes = match config::parse_or::<usize>("max_bytes", 4096)? {
            0 => None,
            n if n < MIN_MAX_BYTES => {
                return Err(Error::new(format!(
                    "config max_bytes={n}: must be 0 (no byte cap) or at least {MIN_MAX_BYTES}, to leave room for the marker"
                )))
            }
            n => Some(n),
        };
        let max_lines = match config::parse_or::<usize>("max_lines", 0)? {
            0 => None,
            n => Some(n),
        };
        let structured = match config::get("structured_content").as_deref().map(str::trim) {
            None | Some("keep") => Structured::Keep,
            Some("strings") => Structured::Strings,
            Some("drop") => Structured::Drop,
            Some(other) => {
                return Err(Error::new(format!(
                    "config structured_content={other:?}: want keep, strings or drop"
                )))
            }
        };
        Ok(Settings {
            limits: Limits {
                max_bytes,
                max_lines,
            },
            structured,
        })
    }
}

/// Applies `settings` to a CallToolResult; returns a description of what was
/// cut, for the log, or `None` when the result fits.
pub fn truncate_result(result: &mut Value, settings: Settings) -> Option<String> {
    let mut did = Vec::new();
    if let Some(items) = result.get_mut("content").and_then(Value::as_array_mut) {
        let mut positions = Vec::new();
        let mut texts = Vec::new();
        for (i, item) in items.iter_mut().enumerate() {
            if let Some((_, s)) = content::text_of(item) {
                positions.push(i);
                texts.push(s);
            }
        }
        if let Some(cut) = truncate_texts(&mut texts, settings.limits) {
            drop(texts);
            let dropped = &positions[cut.index + 1..];
            for &p in dropped.iter().rev() {
                items.remove(p);
            }
            let lines = if settings.limits.max_lines.is_some() {
                format!(", {} of {} lines", cut.kept_lines, cut.total_lines)
            } else {
                String::new()
            };
            did.push(format!(
                "content: kept {} of {} bytes{lines}, dropped {} item(s)",
                cut.kept_bytes,
                cut.total_bytes,
                dropped.len()
            ));
        }
    }
    match settings.structured {
        Structured::Keep => {}
        Structured::Strings => {
            let mut n = 0;
            content::for_each_structured_string(result, |s| {
                if truncate_texts(&mut [s], settings.limits).is_some() {
                    n += 1;
                }
            });
            if n > 0 {
                did.push(format!("structuredContent: {n} string(s) cut"));
            }
        }
        Structured::Drop => {
            if let (Some(max), Some(obj)) = (settings.limits.max_bytes, result.as_object_mut()) {
                let size = obj
                    .get("structuredContent")
                    .map_or(0, |sc| sc.to_string().len());
                if size > max {
                    obj.remove("structuredContent");
                    did.push(format!("structuredContent: dropped ({size} bytes)"));
                }
            }
        }
    }
    if did.is_empty() {
        None
    } else {
        Some(did.join("; "))
    }
}

fn transform(req: TransformResultRequest) -> Result<TransformResultResponse, Error> {
    let settings = Settings::from_config()?;
    let mut result = req.result;
    if let Some(what) = truncate_result(&mut result, settings) {
        log!(
            Level::Debug,
            "truncated the result of {}/{}: {what}",
            req.server,
            req.tool
        );
    }
    Ok(result.into())
}

mcphost_pdk::plugin! {
    name: "truncate",
    version: env!("CARGO_PKG_VERSION"),
    hooks: { transform_result: transform },
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcphost_pdk::testing::Host;
    use mcphost_pdk::{json, Value};

    fn call(host: Host, result: Value) -> Result<Value, String> {
        let req = json!({"server": "srv", "tool": "cat", "name": "srv_cat", "result": result});
        host.run::<_, TransformResultResponse>(mcphost_transform_result_v1, &req)
            .map(|r| r.result)
    }

    #[test]
    fn describe() {
        let out = Host::new().call(mcphost_describe, b"");
        assert_eq!(
            out.output_str(),
            format!(
                r#"{{"abi":1,"name":"truncate","version":"{}","hooks":["transform_result"]}}"#,
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn default_cap_is_4096_bytes() {
        let big = "z".repeat(120_000);
        let got = call(
            Host::new(),
            json!({"content": [{"type": "text", "text": big}]}),
        )
        .unwrap();
        let text = got["content"][0]["text"].as_str().unwrap();
        assert!(text.len() <= 4096);
        assert!(
            text.ends_with("\n[truncated: kept 4055 of 120000 bytes]"),
            "{}",
            &text[4000..]
        );
        // Small results pass unchanged.
        let small = json!({"content": [{"type": "text", "text": "ok"}], "isError": false});
        assert_eq!(call(Host::new(), small.clone()).unwrap(), small);
    }

    #[test]
    fn items_after_the_cut_are_dropped_others_kept() {
        let result = json!({
            "content": [
                {"type": "text", "text": "l1\nl2\nl3\n"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "x://a", "text": "l4\nl5\n"}},
                {"type": "text", "text": "l6\n"},
                {"type": "resource_link", "uri": "x://b", "name": "b"}
            ],
            "structuredContent": {"lines": ["l1", "l2"]},
            "_meta": {"k": 1}
        });
        let got = call(
            Host::new()
                .config("max_lines", "5")
                .config("max_bytes", "0"),
            result,
        )
        .unwrap();
        assert_eq!(
            got,
            json!({
                "content": [
                    {"type": "text", "text": "l1\nl2\nl3\n"},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "resource", "resource": {"uri": "x://a", "text": "l4\n[truncated: kept 12 of 18 bytes, 4 of 6 lines]"}},
                    {"type": "resource_link", "uri": "x://b", "name": "b"}
                ],
                "structuredContent": {"lines": ["l1", "l2"]},
                "_meta": {"k": 1}
            })
        );
    }

    #[test]
    fn structured_content_modes() {
        let long = "s".repeat(300);
        let result = json!({"content": [], "structuredContent": {"a": long, "n": 1, "b": "short"}});
        let host = || Host::new().config("max_bytes", "128");
        assert_eq!(
            call(host(), result.clone()).unwrap(),
            result,
            "kept by default"
        );
        let got = call(
            host().config("structured_content", "strings"),
            result.clone(),
        )
        .unwrap();
        assert_eq!(
            got["structuredContent"]["a"],
            format!("{}\n[truncated: kept 93 of 300 bytes]", "s".repeat(93))
        );
        assert_eq!(
            (
                got["structuredContent"]["n"].clone(),
                got["structuredContent"]["b"].clone()
            ),
            (json!(1), json!("short"))
        );
        let got = call(host().config("structured_content", "drop"), result.clone()).unwrap();
        assert_eq!(got, json!({"content": []}));
    }

    #[test]
    fn config_errors() {
        let r = json!({"content": []});
        for (k, v, want) in [
            (
                "max_bytes",
                "100",
                "must be 0 (no byte cap) or at least 128",
            ),
            ("max_bytes", "-1", "config max_bytes=\"-1\""),
            ("max_lines", "many", "config max_lines=\"many\""),
            ("structured_content", "trim", "want keep, strings or drop"),
        ] {
            let err = call(Host::new().config(k, v), r.clone()).unwrap_err();
            assert!(err.contains(want), "{k}={v}: {err}");
        }
    }

    #[test]
    fn idempotent_through_the_export() {
        let host = || {
            Host::new()
                .config("max_bytes", "512")
                .config("max_lines", "10")
        };
        let text: String = (0..200).map(|i| format!("row {i} ünïcödé\n")).collect();
        let once = call(host(), json!({"content": [{"type": "text", "text": text}]})).unwrap();
        let t = once["content"][0]["text"].as_str().unwrap();
        assert!(t.len() <= 512 && count_lines(t) <= 10, "{t}");
        assert_eq!(call(host(), once.clone()).unwrap(), once);
    }
}
