//! Helpers for walking an MCP `CallToolResult` kept as JSON.
//!
//! The result stays a `serde_json::Value` so that everything a transform does
//! not touch (images, `_meta`, fields of newer MCP revisions) goes back to
//! the host byte-for-byte equivalent. These helpers reach the places where
//! human-readable text lives:
//!
//! - `content[i].text` of items with `"type": "text"`;
//! - `content[i].resource.text` of embedded resources (`"type": "resource"`);
//! - every string value inside `structuredContent` (object keys excluded).

use serde_json::Value;

/// The kind of a text location, for callers that treat them differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// `content[i].text` of a text item.
    Text,
    /// `content[i].resource.text` of an embedded resource.
    ResourceText,
}

/// Calls `f` with every text of `result.content`, in order: text items and
/// the text of embedded resources.
pub fn for_each_text<F: FnMut(TextKind, &mut String)>(result: &mut Value, mut f: F) {
    let items = match result.get_mut("content").and_then(Value::as_array_mut) {
        Some(items) => items,
        None => return,
    };
    for item in items {
        if let Some((kind, text)) = text_of(item) {
            f(kind, text);
        }
    }
}

/// The text of one content item, if it is a text item or an embedded
/// resource with text.
pub fn text_of(item: &mut Value) -> Option<(TextKind, &mut String)> {
    let obj = item.as_object_mut()?;
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some("text") => TextKind::Text,
        Some("resource") => TextKind::ResourceText,
        _ => return None,
    };
    let holder = match kind {
        TextKind::Text => obj,
        TextKind::ResourceText => obj.get_mut("resource")?.as_object_mut()?,
    };
    match holder.get_mut("text") {
        Some(Value::String(s)) => Some((kind, s)),
        _ => None,
    }
}

/// Calls `f` with every string value inside `result.structuredContent`.
pub fn for_each_structured_string<F: FnMut(&mut String)>(result: &mut Value, mut f: F) {
    if let Some(sc) = result.get_mut("structuredContent") {
        for_each_string(sc, &mut f);
    }
}

/// Calls `f` with every string value inside `value`, depth first (object keys
/// are not visited).
pub fn for_each_string<F: FnMut(&mut String)>(value: &mut Value, f: &mut F) {
    match value {
        Value::String(s) => f(s),
        Value::Array(a) => {
            for v in a {
                for_each_string(v, f);
            }
        }
        Value::Object(o) => {
            for (_, v) in o.iter_mut() {
                for_each_string(v, f);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn visits_text_and_resource_text_in_order() {
        let mut r = json!({
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "x://y", "text": "b"}},
                {"type": "resource", "resource": {"uri": "x://z", "blob": "AAAA"}},
                {"type": "resource_link", "uri": "x://w", "name": "w"},
                {"type": "text", "text": "c"}
            ]
        });
        let mut seen = Vec::new();
        for_each_text(&mut r, |k, s| {
            seen.push((k, s.clone()));
            s.push('!');
        });
        assert_eq!(
            seen,
            vec![
                (TextKind::Text, "a".to_string()),
                (TextKind::ResourceText, "b".to_string()),
                (TextKind::Text, "c".to_string())
            ]
        );
        assert_eq!(r["content"][0]["text"], "a!");
        assert_eq!(r["content"][2]["resource"]["text"], "b!");
        assert_eq!(r["content"][1]["data"], "AAAA");
    }

    #[test]
    fn structured_strings_only_values() {
        let mut r = json!({"structuredContent": {"k": "v", "n": 1, "a": ["x", {"s": "y"}]}});
        for_each_structured_string(&mut r, |s| s.make_ascii_uppercase());
        assert_eq!(
            r,
            json!({"structuredContent": {"k": "V", "n": 1, "a": ["X", {"s": "Y"}]}})
        );
    }

    #[test]
    fn tolerates_odd_results() {
        for mut r in [
            json!(null),
            json!({}),
            json!({"content": 3}),
            json!({"content": [1, {"type": "text"}]}),
        ] {
            for_each_text(&mut r, |_, _| panic!("no text expected"));
            for_each_structured_string(&mut r, |_| panic!("no string expected"));
        }
    }
}
