//! read-only: an mcphost policy plugin that lets an agent read but not
//! change anything. It allows the tools their server annotates
//! `readOnlyHint: true` and denies every other tool, unless the tool's
//! public name or `server:tool` matches a glob of the `allow` config key.
//!
//! Annotations are hints from the server, read with MCP's default: a tool
//! that does not say `readOnlyHint: true` is not read-only, so a tool
//! without annotations is denied unless allowed. Every reason names the
//! rule that fired and the tool; a deny also says how to allow the tool.
//!
//! Configuration: `allow`, comma-separated globs where `*` matches any run
//! of characters and `?` one character, neither matching `/` (as in Go's
//! `path.Match`, which the Go example `deny-destructive` uses). `[` and `\`
//! are refused with a config error rather than read with another meaning.
//!
//! It runs before every tool call, so it does little: it takes the PDK's
//! typed request, makes one pass over the allow list (no list is built),
//! and beyond what the PDK allocates builds only the reason, plus
//! `server:tool` when the tool is not read-only.

use mcphost_pdk::{config, Error, PolicyDecision, PolicyRequest};

fn policy(req: PolicyRequest) -> Result<PolicyDecision, Error> {
    // The allow list is checked on every call, read-only or not, so that a
    // mistake in it shows on the first call whatever the tool. (The PDK
    // fetches the value from the host once per instance.)
    let allow = config::get("allow");
    let allow = allow.as_deref().unwrap_or("");
    check_globs(allow)?;

    if req.annotations.as_ref().map_or(false, |a| a.read_only_hint) {
        return Ok(PolicyDecision::allow().with_reason(reason(&[
            "read-only: ",
            &req.name,
            " (",
            &req.server,
            ":",
            &req.tool,
            ") is annotated readOnlyHint: true",
        ])));
    }
    let full = reason(&[&req.server, ":", &req.tool]);
    if let Some(glob) = first_match(allow, &req.name, &full) {
        return Ok(PolicyDecision::allow().with_reason(reason(&[
            "allow: ",
            &req.name,
            " (",
            &full,
            ") is not annotated read-only but matches \"",
            glob,
            "\" of the allow config",
        ])));
    }
    Ok(PolicyDecision::deny(reason(&[
        "not read-only: ",
        &req.name,
        " (",
        &full,
        ") is not annotated readOnlyHint: true and matches no glob of the allow config; to allow it, add \"",
        &full,
        "\" (or a glob such as \"",
        &req.server,
        ":*\") to this plugin's allow config",
    ])))
}

/// Concatenates `parts` with one allocation: plain pushes, not `format!`,
/// whose machinery costs more instructions in a guest that runs under a
/// timeout.
fn reason(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

/// The globs of an `allow` value: comma-separated, trimmed, empty items
/// dropped.
fn globs(allow: &str) -> impl Iterator<Item = &str> {
    allow.split(',').map(str::trim).filter(|g| !g.is_empty())
}

/// Refuses the glob syntax this plugin does not implement: a character
/// class or an escape would mean something else in `deny-destructive`, so
/// reading it as a literal could allow or deny other tools than intended.
pub fn check_globs(allow: &str) -> Result<(), Error> {
    for glob in globs(allow) {
        if glob.bytes().any(|c| c == b'[' || c == b'\\') {
            return Err(Error::new(format!(
                "config allow: glob {glob:?}: only * and ? are special here; [...] classes and \\ escapes are not supported"
            )));
        }
    }
    Ok(())
}

/// The first glob of `allow` that matches the public name or `server:tool`.
pub fn first_match<'a>(allow: &'a str, name: &str, full: &str) -> Option<&'a str> {
    globs(allow).find(|g| glob_match(g, name) || glob_match(g, full))
}

/// Reports whether `text` matches `glob`, where `*` matches any run of
/// characters but `/` and `?` any one character but `/`; everything else
/// matches itself. The same algorithm as Go's `path.Match` (chunks of
/// literals and `?` between stars, each star extended only as far as the
/// next chunk needs), without character classes and escapes. One
/// difference: a star here grows by whole characters where Go's grows by
/// bytes, so Go also matches `*??` against a single three-byte character.
pub fn glob_match(glob: &str, text: &str) -> bool {
    let mut pat = glob.as_bytes();
    let mut s = text.as_bytes();
    'chunks: while !pat.is_empty() {
        // A chunk: the stars before it, then literals and '?' up to the next
        // star.
        let mut star = false;
        while let Some((b'*', rest)) = pat.split_first() {
            star = true;
            pat = rest;
        }
        let end = pat.iter().position(|&c| c == b'*').unwrap_or(pat.len());
        let (chunk, rest) = pat.split_at(end);
        pat = rest;
        if star && chunk.is_empty() {
            // A trailing star takes the rest, if it has no '/'.
            return !s.contains(&b'/');
        }
        // Try the chunk right here first (the star, if any, matching
        // nothing). The last chunk must also use the text up.
        if let Some(t) = match_chunk(chunk, s) {
            if t.is_empty() || !pat.is_empty() {
                s = t;
                continue;
            }
        }
        if star {
            // Let the star take one more character at a time, never a '/'.
            let mut i = 0;
            while i < s.len() && s[i] != b'/' {
                i = (i + char_len(s[i])).min(s.len());
                if let Some(t) = match_chunk(chunk, &s[i..]) {
                    if pat.is_empty() && !t.is_empty() {
                        continue;
                    }
                    s = t;
                    continue 'chunks;
                }
            }
        }
        return false;
    }
    s.is_empty()
}

/// Matches a chunk (literals and `?`, no star) at the start of `s`; returns
/// the rest of `s`.
fn match_chunk<'a>(chunk: &[u8], mut s: &'a [u8]) -> Option<&'a [u8]> {
    for &c in chunk {
        let (&first, _) = s.split_first()?;
        if c == b'?' {
            if first == b'/' {
                return None;
            }
            s = &s[char_len(first).min(s.len())..];
        } else {
            if c != first {
                return None;
            }
            s = &s[1..];
        }
    }
    Some(s)
}

/// The length of the UTF-8 character that starts with byte `b`.
fn char_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

mcphost_pdk::plugin! {
    name: "read-only",
    version: env!("CARGO_PKG_VERSION"),
    hooks: { policy: policy },
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcphost_pdk::testing::Host;
    use mcphost_pdk::{json, Decision, Value};

    fn call(host: Host, req: Value) -> Result<PolicyDecision, String> {
        host.run::<_, PolicyDecision>(mcphost_policy_v1, &req)
    }

    fn req(server: &str, tool: &str, name: &str, annotations: Value) -> Value {
        json!({"server": server, "tool": tool, "name": name, "arguments": {"path": "a.txt"},
            "annotations": annotations, "caller": {"kind": "cli"}})
    }

    #[test]
    fn describe() {
        let out = Host::new().call(mcphost_describe, b"");
        assert_eq!(out.rc, 0);
        assert_eq!(
            out.output_str(),
            format!(
                r#"{{"abi":1,"name":"read-only","version":"{}","hooks":["policy"]}}"#,
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn decisions() {
        let ro = json!({"readOnlyHint": true, "openWorldHint": false});
        let safe = json!({"destructiveHint": false, "openWorldHint": false});
        let destructive = json!({"destructiveHint": true});
        let cases: &[(&str, Option<&str>, Value, Decision, &str)] = &[
            (
                "read-only",
                None,
                req("fs", "read_file", "fs_read_file", ro.clone()),
                Decision::Allow,
                "read-only: fs_read_file (fs:read_file) is annotated readOnlyHint: true",
            ),
            (
                "read-only wins over destructiveHint",
                None,
                req("fs", "stat", "fs_stat", json!({"readOnlyHint": true, "destructiveHint": true})),
                Decision::Allow,
                "read-only: ",
            ),
            (
                "not destructive is not read-only",
                None,
                req("calc", "add", "calc_add", safe.clone()),
                Decision::Deny,
                "not read-only: calc_add (calc:add) is not annotated readOnlyHint: true and matches no glob of the allow config; \
                 to allow it, add \"calc:add\" (or a glob such as \"calc:*\") to this plugin's allow config",
            ),
            (
                "readOnlyHint false",
                None,
                req("fs", "write", "fs_write", json!({"readOnlyHint": false})),
                Decision::Deny,
                "not read-only: fs_write (fs:write)",
            ),
            (
                "no annotations",
                None,
                json!({"server": "fs", "tool": "write", "name": "fs_write"}),
                Decision::Deny,
                "not read-only: fs_write (fs:write)",
            ),
            (
                "null annotations",
                None,
                json!({"server": "fs", "tool": "write", "name": "fs_write", "arguments": null, "annotations": null}),
                Decision::Deny,
                "not read-only: ",
            ),
            (
                "allowed by public name",
                Some("gh_*, fs_del*"),
                req("fs", "delete", "fs_delete", destructive.clone()),
                Decision::Allow,
                "allow: fs_delete (fs:delete) is not annotated read-only but matches \"fs_del*\" of the allow config",
            ),
            (
                "allowed by server:tool",
                Some("fs:stat_*"),
                req("fs", "stat_dir", "renamed", safe.clone()),
                Decision::Allow,
                "matches \"fs:stat_*\"",
            ),
            (
                "allowed with ?",
                Some("calc:ad?"),
                req("calc", "add", "calc_add", safe.clone()),
                Decision::Allow,
                "matches \"calc:ad?\"",
            ),
            (
                "allow list for other tools",
                Some("gh:*,fs:read, ,fs_stat_*"),
                req("fs", "delete", "fs_delete", destructive),
                Decision::Deny,
                "matches no glob",
            ),
            (
                "empty items only",
                Some(" , ,"),
                req("calc", "add", "calc_add", safe),
                Decision::Deny,
                "matches no glob",
            ),
            (
                "read-only needs no glob",
                Some("gh:*"),
                req("fs", "read_file", "fs_read_file", ro),
                Decision::Allow,
                "read-only: ",
            ),
        ];
        for (name, allow, req, want, reason) in cases {
            let mut host = Host::new();
            if let Some(a) = allow {
                host = host.config("allow", a);
            }
            let d = call(host, req.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(d.decision, *want, "{name}: {}", d.reason);
            assert!(d.reason.contains(reason), "{name}: {}", d.reason);
            assert!(d.arguments.is_none(), "{name}: arguments rewritten");
        }
    }

    #[test]
    fn output_is_exact() {
        // Only the fields the ABI knows: no arguments, so no rewrite.
        let out = Host::new().call(
            mcphost_policy_v1,
            br#"{"server":"fs","tool":"read","name":"fs_read","arguments":{},"annotations":{"readOnlyHint":true},"future":1}"#,
        );
        assert_eq!(out.rc, 0, "{:?}", out.error);
        assert_eq!(
            out.output_str(),
            r#"{"decision":"allow","reason":"read-only: fs_read (fs:read) is annotated readOnlyHint: true"}"#
        );
        assert!(out.logs.is_empty());
    }

    #[test]
    fn config_errors() {
        for allow in ["fs_[", "fs:[ab]*", "gh_*, fs\\*"] {
            // Also on a read-only call: a broken config shows at once.
            let r = req("fs", "read", "fs_read", json!({"readOnlyHint": true}));
            let err = call(Host::new().config("allow", allow), r).unwrap_err();
            assert!(err.starts_with("config allow: glob \""), "{allow}: {err}");
            assert!(err.contains("only * and ? are special"), "{allow}: {err}");
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let out = Host::new().call(mcphost_policy_v1, br#"{"server":1}"#);
        assert_eq!(out.rc, 1);
        assert!(out
            .error
            .unwrap()
            .starts_with("mcphost_policy_v1: invalid input: "));
    }

    #[test]
    fn globs_like_go_path_match() {
        // Expected values are those of Go's path.Match for the same inputs.
        let cases: &[(&str, &str, bool)] = &[
            ("", "", true),
            ("", "a", false),
            ("*", "", true),
            ("*", "abc", true),
            ("*", "a/b", false),
            ("a*", "a", true),
            ("a*", "abc", true),
            ("a*", "ba", false),
            ("*c", "abc", true),
            ("*c", "abcd", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyyd", false),
            ("a*b*c*d", "abxbbxdbxebxczzd", true),
            ("a*b*c*d", "abxbbxdbxebxczzx", false),
            ("a*b?c*x", "abxbbxdbxebxczzx", true),
            ("a*b?c*x", "abxbbxdbxebxczzy", false),
            ("ab*d", "abc/d", false),
            ("a*/b", "abc/b", true),
            ("a*/b", "a/c/b", false),
            ("a?b", "a/b", false),
            ("a?b", "a☺b", true),
            ("a???b", "a☺b", false),
            ("a?", "a", false),
            ("??", "ü€", true),
            ("*x", "xxx", true),
            ("**", "abc", true),
            ("a**b", "ab", true),
            ("fs:stat_*", "fs:stat_dir", true),
            ("fs:stat_*", "fs:stat", false),
            ("fs:*", "fs:", true),
            ("fs:*", "fsx:a", false),
            ("*_read_*", "mcp__files__read_file", true),
            ("*__read_*", "mcp__files__read_file", true),
            ("FS:*", "fs:a", false),
            ("a]b", "a]b", true),
            ("ツ*", "ツール", true),
            ("*ル", "ツール", true),
            ("?ール", "ツール", true),
        ];
        for (glob, text, want) in cases {
            assert_eq!(glob_match(glob, text), *want, "glob {glob:?} text {text:?}");
        }
    }

    #[test]
    fn first_match_names_the_glob() {
        assert_eq!(first_match("a*, fs:*", "fs_x", "fs:x"), Some("fs:*"));
        assert_eq!(first_match(" fs_* ,fs:*", "fs_x", "fs:x"), Some("fs_*"));
        assert_eq!(first_match("", "fs_x", "fs:x"), None);
        assert_eq!(first_match("gh:*", "fs_x", "fs:x"), None);
    }
}
