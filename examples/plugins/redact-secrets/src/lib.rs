//! redact-secrets: an mcphost transform_result plugin that replaces API keys,
//! bearer tokens, PEM private keys and e-mail addresses in tool results with
//! `[REDACTED:<kind>]`, before the model or the user sees them.
//!
//! It looks at every text content item, the text of embedded resources and
//! every string inside `structuredContent`; everything else in the result
//! (images, blobs, `_meta`, unknown fields) passes through unchanged.
//!
//! Configuration: `kinds`, a comma-separated list of `api_key`,
//! `bearer_token`, `private_key`, `email` (default, and when empty: all).

mod redact;

use mcphost_pdk::{config, content, log, Level, TransformResultRequest, TransformResultResponse};
pub use redact::{Kind, Redactor};

fn transform(req: TransformResultRequest) -> Result<TransformResultResponse, String> {
    // Read per call: a few host calls, and the configuration stays the
    // host's to change.
    let redactor = Redactor::from_names(config::list("kinds"))?;
    let mut result = req.result;
    let mut n = 0;
    content::for_each_text(&mut result, |_, s| n += redactor.redact_in_place(s));
    content::for_each_structured_string(&mut result, |s| n += redactor.redact_in_place(s));
    if n > 0 {
        // Counts only: the secrets themselves never reach the log.
        log!(
            Level::Debug,
            "redacted {n} secret(s) in the result of {}/{}",
            req.server,
            req.tool
        );
    }
    Ok(result.into())
}

mcphost_pdk::plugin! {
    name: "redact-secrets",
    version: env!("CARGO_PKG_VERSION"),
    hooks: { transform_result: transform },
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcphost_pdk::testing::Host;
    use mcphost_pdk::{json, Value};

    fn call(host: Host, result: Value) -> Result<Value, String> {
        let req = json!({"server": "srv", "tool": "read", "name": "srv_read", "arguments": {}, "result": result});
        host.run::<_, TransformResultResponse>(mcphost_transform_result_v1, &req)
            .map(|r| r.result)
    }

    #[test]
    fn describe() {
        let out = Host::new().call(mcphost_describe, b"");
        assert_eq!(out.rc, 0);
        assert_eq!(
            out.output_str(),
            format!(
                r#"{{"abi":1,"name":"redact-secrets","version":"{}","hooks":["transform_result"]}}"#,
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn redacts_text_resources_and_structured_content() {
        let got = call(
            Host::new(),
            json!({
                "content": [
                    {"type": "text", "text": "contact ops@example.com, key sk-ant-api03-AbC123dEf456GhI789jKl0"},
                    {"type": "image", "data": "c2stYW50LWFwaTAzLUFiQzEyM2RFZjQ1NkdoSTc4OWpLbDA=", "mimeType": "image/png"},
                    {"type": "resource", "resource": {"uri": "file:///id_rsa", "mimeType": "text/plain",
                        "text": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\n"}}
                ],
                "structuredContent": {"headers": {"Authorization": "Bearer eyJhbGciOi.eyJzdWIi.c2ln"}, "count": 2, "owner": "ops@example.com"},
                "isError": false,
                "_meta": {"trace": "ops@example.com"}
            }),
        )
        .unwrap();
        assert_eq!(
            got,
            json!({
                "content": [
                    {"type": "text", "text": "contact [REDACTED:email], key [REDACTED:api_key]"},
                    {"type": "image", "data": "c2stYW50LWFwaTAzLUFiQzEyM2RFZjQ1NkdoSTc4OWpLbDA=", "mimeType": "image/png"},
                    {"type": "resource", "resource": {"uri": "file:///id_rsa", "mimeType": "text/plain",
                        "text": "[REDACTED:private_key]\n"}}
                ],
                "structuredContent": {"headers": {"Authorization": "Bearer [REDACTED:bearer_token]"}, "count": 2, "owner": "[REDACTED:email]"},
                "isError": false,
                "_meta": {"trace": "ops@example.com"}
            })
        );
    }

    #[test]
    fn logs_counts_not_secrets() {
        let req = json!({"server": "s", "tool": "t", "name": "s_t",
            "result": {"content": [{"type": "text", "text": "a@example.com b@example.com"}]}});
        let out = Host::new().call(
            mcphost_transform_result_v1,
            &mcphost_pdk::serde_json::to_vec(&req).unwrap(),
        );
        assert_eq!(out.rc, 0);
        assert_eq!(
            out.logs,
            vec![(
                Level::Debug,
                "redacted 2 secret(s) in the result of s/t".to_string()
            )]
        );
        assert!(!out.output_str().contains("example.com"));
    }

    #[test]
    fn kinds_config() {
        let result =
            json!({"content": [{"type": "text", "text": "a@example.com Bearer abc.def.123456"}]});
        let got = call(Host::new().config("kinds", "bearer_token"), result.clone()).unwrap();
        assert_eq!(
            got["content"][0]["text"],
            "a@example.com Bearer [REDACTED:bearer_token]"
        );
        let err = call(Host::new().config("kinds", " , "), result.clone()).unwrap_err();
        assert!(err.contains("no kind listed"), "{err}");
        let err = call(Host::new().config("kinds", "email,password"), result).unwrap_err();
        assert!(err.contains(r#"unknown kind "password""#), "{err}");
    }

    #[test]
    fn clean_result_unchanged() {
        let result = json!({"content": [{"type": "text", "text": "all good: 42 files"}], "structuredContent": {"n": 42}});
        assert_eq!(call(Host::new(), result.clone()).unwrap(), result);
        // Results of any shape pass through.
        assert_eq!(call(Host::new(), json!({})).unwrap(), json!({}));
    }
}
