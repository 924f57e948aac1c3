//! description-guard: an mcphost filter_tools plugin that hides (or flags)
//! the tools whose name, title or description carries tool poisoning:
//! invisible or bidi characters, long base64 or hex blobs, markup and
//! phrases aimed at the model, orders to read credential files, and the
//! tool names of other servers (and, with `schema` on, the descriptions,
//! titles and property names of its input schema) (see guard.rs for the rules and README.md
//! for the research they come from).
//!
//! A filter can only keep or drop names (ABI §4.2), so `action: flag` keeps
//! the tool and writes the finding to the host's log at warn level;
//! `action: hide` (the default) drops it and logs at info level.

mod defaults;
pub mod guard;

use guard::{Guard, Settings};
use mcphost_pdk::{config, log, Error, FilterToolsRequest, FilterToolsResponse, Level, Value};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// The host keeps at most 64 log lines per call; past this many findings
/// one line counts the rest.
const MAX_LOGGED: usize = 32;

thread_local! {
    // The Guard built from the last settings seen. The host fixes an
    // instance's config (ABI §5), so it is built once per instance; keyed by
    // the settings so that the test host, which changes them, gets a fresh one.
    static CACHE: RefCell<Option<(Settings, Rc<Guard>)>> = RefCell::new(None);
}

fn settings() -> Settings {
    Settings {
        rules: config::get("rules"),
        min_base64: config::get("min_base64"),
        min_hex: config::get("min_hex"),
        phrases: config::get("phrases"),
        tags: config::get("tags"),
        paths: config::get("paths"),
        known_tools: config::get("known_tools"),
    }
}

fn guard() -> Result<Rc<Guard>, Error> {
    let s = settings();
    if let Some(g) = CACHE.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|(k, _)| *k == s)
            .map(|(_, g)| g.clone())
    }) {
        return Ok(g);
    }
    let g = Rc::new(Guard::new(&s)?);
    CACHE.with(|c| *c.borrow_mut() = Some((s, g.clone())));
    Ok(g)
}

fn filter(req: FilterToolsRequest) -> Result<FilterToolsResponse, Error> {
    let flag = match config::get("action").as_deref().map(str::trim) {
        None | Some("hide") => false,
        Some("flag") => true,
        Some(other) => {
            return Err(Error::new(format!(
                "config action={other:?}: want hide (drop the tool) or flag (keep it and log a warning)"
            )))
        }
    };
    let scan_schema = config::flag("schema", true)?;
    let guard = guard()?;
    let mut own: Vec<&str> = req.tools.iter().map(|t| t.name.as_str()).collect();
    own.sort_unstable();
    let mut kept = BTreeSet::new();
    let mut keep = Vec::with_capacity(req.tools.len());
    let mut buf = (Vec::new(), Vec::new());
    let mut findings = 0usize;
    for t in &req.tools {
        let mut finding = [
            ("name", &t.name),
            ("title", &t.title),
            ("description", &t.description),
        ]
        .iter()
        .find_map(|(field, text)| guard.check(&req.server, &own, field, text, &mut buf));
        if finding.is_none() && scan_schema {
            if let Some(schema) = &t.input_schema {
                finding = schema_texts(schema).into_iter().find_map(|text| {
                    guard.check(&req.server, &own, "input_schema", text, &mut buf)
                });
            }
        }
        if let Some(f) = &finding {
            findings += 1;
            if findings <= MAX_LOGGED {
                log!(
                    if flag { Level::Warn } else { Level::Info },
                    "{} tool {:?} of server {:?}: rule {}: {} in its {}",
                    if flag { "flagged" } else { "hid" },
                    t.name,
                    req.server,
                    f.rule.as_str(),
                    f.what,
                    f.field
                );
            }
        }
        // A name given twice is kept once (the host refuses a repeat).
        if (finding.is_none() || flag) && kept.insert(t.name.as_str()) {
            keep.push(t.name.clone());
        }
    }
    if findings > MAX_LOGGED {
        log!(
            if flag { Level::Warn } else { Level::Info },
            "{} more tools of server {:?} {}",
            findings - MAX_LOGGED,
            req.server,
            if flag { "flagged" } else { "hidden" }
        );
    }
    Ok(FilterToolsResponse { tools: keep })
}

/// The texts of an input schema that reach the model: every `description`
/// and `title` string, at any depth, and the names of properties. (Poisoning
/// is not only in the tool's description: CyberArk's "Poison everywhere"
/// puts it in parameter descriptions and names.) An explicit stack, not
/// recursion: the host allows nesting 1000 deep.
fn schema_texts(schema: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("description" | "title", Value::String(s)) => out.push(s.as_str()),
                        ("properties", Value::Object(props)) => {
                            out.extend(props.keys().map(String::as_str))
                        }
                        _ => {}
                    }
                    stack.push(x);
                }
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    out
}

mcphost_pdk::plugin! {
    name: "description-guard",
    version: env!("CARGO_PKG_VERSION"),
    hooks: { filter_tools: filter },
}

#[cfg(test)]
mod tests;
