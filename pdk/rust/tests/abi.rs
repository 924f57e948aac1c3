//! Wire compatibility with pdk/abi/abi.go and the export wrappers, run
//! natively through the fake host.

use mcphost_pdk::testing::Host;
use mcphost_pdk::*;

/// Decodes `wire` as T and encodes it back: the result must be the same JSON
/// (what Go's encoding/json produces for the equivalent Go value).
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(wire: &str) -> T {
    let v: T = serde_json::from_str(wire).unwrap_or_else(|e| panic!("decode {wire}: {e}"));
    let back = serde_json::to_value(&v).unwrap();
    let want: Value = serde_json::from_str(wire).unwrap();
    assert_eq!(back, want, "re-encoded JSON differs for {wire}");
    v
}

#[test]
fn policy_request_wire() {
    let r: PolicyRequest = round_trip(
        r#"{"server":"fs","tool":"delete_file","name":"fs_delete_file","arguments":{"path":"/x"},
            "annotations":{"title":"Delete","destructiveHint":true,"openWorldHint":false},
            "meta":{"progressToken":1},"caller":{"kind":"gateway","id":"alice","session":"s1"},"pin":"changed"}"#,
    );
    assert_eq!(r.arguments["path"], "/x");
    assert_eq!(r.pin, "changed");
    assert!(r.destructive());
    assert!(!r.open_world());
    assert_eq!(r.caller.unwrap().id, "alice");

    // Go's nil map encodes as null; omitempty fields may be absent.
    let r: PolicyRequest =
        serde_json::from_str(r#"{"server":"s","tool":"t","name":"n","arguments":null}"#).unwrap();
    assert!(r.arguments.is_empty());
    assert!(r.annotations.is_none() && r.caller.is_none() && r.meta.is_empty() && r.pin.is_empty());
    assert!(
        r.destructive(),
        "no annotations: destructive by MCP default"
    );
    assert!(r.open_world());
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        r#"{"server":"s","tool":"t","name":"n","arguments":{}}"#
    );
}

#[test]
fn annotations_defaults_match_go() {
    let ro: ToolAnnotations = round_trip(r#"{"readOnlyHint":true,"destructiveHint":true}"#);
    assert!(!ToolAnnotations::destructive(Some(&ro)), "read-only wins");
    let nd: ToolAnnotations = round_trip(r#"{"destructiveHint":false,"idempotentHint":true}"#);
    assert!(!ToolAnnotations::destructive(Some(&nd)));
    let empty: ToolAnnotations = round_trip("{}");
    assert!(ToolAnnotations::destructive(Some(&empty)));
    assert!(ToolAnnotations::open_world(Some(&empty)));
}

#[test]
fn policy_decision_wire() {
    assert_eq!(
        serde_json::to_string(&PolicyDecision::allow()).unwrap(),
        r#"{"decision":"allow"}"#
    );
    assert_eq!(
        serde_json::to_string(&PolicyDecision::deny("no")).unwrap(),
        r#"{"decision":"deny","reason":"no"}"#
    );
    let mut args = Map::new();
    args.insert("path".into(), json!("/safe"));
    assert_eq!(
        serde_json::to_string(&PolicyDecision::confirm("sure?").with_arguments(args)).unwrap(),
        r#"{"decision":"confirm","reason":"sure?","arguments":{"path":"/safe"}}"#
    );
    round_trip::<PolicyDecision>(r#"{"decision":"deny","reason":"x"}"#);
}

#[test]
fn other_documents_wire() {
    let f: FilterToolsRequest = round_trip(
        r#"{"server":"s","tools":[{"name":"a","title":"A","description":"d","annotations":{"readOnlyHint":true},
            "input_schema":{"type":"object","properties":{"x":{"type":"string"}}}},{"name":"b"}]}"#,
    );
    assert_eq!(f.tools[0].input_schema.as_ref().unwrap()["type"], "object");
    assert!(!f.tools[0].destructive());
    let f: FilterToolsRequest = serde_json::from_str(r#"{"server":"s","tools":null}"#).unwrap();
    assert!(f.tools.is_empty());
    round_trip::<FilterToolsResponse>(r#"{"tools":["a"]}"#);

    let m: MapNamesRequest = round_trip(
        r#"{"tools":[{"server":"s","tool":"t","title":"T"},{"server":"s","tool":"u"}],
            "constraints":{"max_length":64,"pattern":"^[a-zA-Z0-9_-]{1,64}$"}}"#,
    );
    assert_eq!(m.constraints.max_length, 64);
    round_trip::<MapNamesResponse>(r#"{"names":["s_t","s_u"]}"#);

    let t: TransformResultRequest = round_trip(
        r#"{"server":"s","tool":"t","name":"s_t","arguments":{"q":1},
            "result":{"content":[{"type":"text","text":"hi","_meta":{"x":1}}],"isError":false,"futureField":[1,2]}}"#,
    );
    assert_eq!(
        t.result["futureField"],
        json!([1, 2]),
        "unknown result fields survive"
    );
    round_trip::<TransformResultResponse>(r#"{"result":{"content":[]}}"#);

    let a: AuthRequest = round_trip(
        r#"{"server":"s","url":"https://x/mcp","challenge":{"status":401,"www_authenticate":"Bearer realm=\"x\""}}"#,
    );
    assert_eq!(a.challenge.unwrap().status, 401);
    let a: AuthRequest = round_trip(r#"{"server":"s","url":"https://x/mcp","challenge":{}}"#);
    assert_eq!(a.challenge.unwrap().status, 0);
    round_trip::<AuthResponse>(r#"{"headers":{"Authorization":"Bearer t"},"expires_in":300}"#);
    round_trip::<AuthResponse>(r#"{"headers":{}}"#);

    let h: HttpRequest =
        round_trip(r#"{"method":"POST","url":"https://x","headers":{"A":"b"},"body":"aGVsbG8="}"#);
    assert_eq!(h.body, b"hello");
    let h: HttpResponse =
        serde_json::from_str(r#"{"status":0,"headers":null,"body":null,"error":"refused"}"#)
            .unwrap();
    assert_eq!(h.error, "refused");
    round_trip::<HttpResponse>(r#"{"status":200,"body":"AP8="}"#);

    let d: Description = round_trip(
        r#"{"abi":1,"name":"p","version":"1.0","hooks":["policy","filter_tools","map_names","transform_result","auth"]}"#,
    );
    assert_eq!(
        d.hooks,
        vec![
            Hook::Policy,
            Hook::FilterTools,
            Hook::MapNames,
            Hook::TransformResult,
            Hook::Auth
        ]
    );
}

#[test]
fn hook_names_and_exports() {
    for h in Hook::ALL {
        assert_eq!(h.export(), format!("mcphost_{}_v1", h.as_str()));
        assert_eq!(serde_json::to_value(h).unwrap(), json!(h.as_str()));
    }
}

// A plugin with every hook, exercising config, secrets, logs and HTTP.

fn policy(req: PolicyRequest) -> Result<PolicyDecision, Error> {
    log!(Level::Info, "policy for {}", req.tool);
    if req.tool == "boom" {
        return Err("cannot decide".into());
    }
    let denied = config::list("deny").unwrap_or_default();
    if denied.contains(&req.tool) {
        return Ok(PolicyDecision::deny(format!(
            "{} is denied by config",
            req.tool
        )));
    }
    Ok(PolicyDecision::allow())
}

fn filter(req: FilterToolsRequest) -> Result<FilterToolsResponse, String> {
    Ok(FilterToolsResponse {
        tools: req
            .tools
            .into_iter()
            .filter(|t| !t.destructive())
            .map(|t| t.name)
            .collect(),
    })
}

fn names(req: MapNamesRequest) -> Result<MapNamesResponse, String> {
    Ok(MapNamesResponse {
        names: req
            .tools
            .iter()
            .map(|k| format!("{}_{}", k.server, k.tool))
            .collect(),
    })
}

fn transform(req: TransformResultRequest) -> Result<TransformResultResponse, String> {
    let mut result = req.result;
    content::for_each_text(&mut result, |_, s| *s = s.to_uppercase());
    Ok(result.into())
}

fn auth(req: AuthRequest) -> Result<AuthResponse, Error> {
    let token = secret("token").ok_or("secret token is not granted")?;
    let resp = http::request(&HttpRequest {
        method: "POST".into(),
        url: format!("{}/token", req.url),
        body: token.into_bytes(),
        ..Default::default()
    })?;
    let mut out = AuthResponse::default();
    out.headers.insert(
        "Authorization".into(),
        format!("Bearer {}", String::from_utf8_lossy(&resp.body)),
    );
    out.expires_in = 60;
    Ok(out)
}

mcphost_pdk::plugin! {
    name: "all-hooks",
    version: "1.2.3",
    hooks: {
        policy: policy,
        filter_tools: filter,
        map_names: names,
        transform_result: transform,
        auth: auth,
    },
}

#[test]
fn describe_lists_every_hook() {
    let out = Host::new().call(mcphost_describe, b"");
    assert_eq!(out.rc, 0);
    assert_eq!(
        out.output_str(),
        r#"{"abi":1,"name":"all-hooks","version":"1.2.3","hooks":["policy","filter_tools","map_names","transform_result","auth"]}"#
    );
}

#[test]
fn policy_outcomes_and_errors() {
    let req = |tool: &str| PolicyRequest {
        server: "s".into(),
        tool: tool.into(),
        name: tool.into(),
        ..Default::default()
    };
    let d: PolicyDecision = Host::new()
        .config("deny", "rm, dd")
        .run(mcphost_policy_v1, &req("dd"))
        .unwrap();
    assert_eq!(d, PolicyDecision::deny("dd is denied by config"));
    let d: PolicyDecision = Host::new().run(mcphost_policy_v1, &req("dd")).unwrap();
    assert_eq!(d.decision, Decision::Allow);

    let out = Host::new().call(
        mcphost_policy_v1,
        &serde_json::to_vec(&req("boom")).unwrap(),
    );
    assert_eq!((out.rc, out.error.as_deref()), (1, Some("cannot decide")));
    assert_eq!(out.logs, vec![(Level::Info, "policy for boom".to_string())]);
    assert!(out.output.is_empty());

    let out = Host::new().call(mcphost_policy_v1, b"{not json");
    assert_eq!(out.rc, 1);
    assert!(out
        .error
        .unwrap()
        .starts_with("mcphost_policy_v1: invalid input:"));
}

#[test]
fn filter_names_transform() {
    let f: FilterToolsResponse = Host::new()
        .run(
            mcphost_filter_tools_v1,
            &json!({"server":"s","tools":[{"name":"read","annotations":{"readOnlyHint":true}},{"name":"write"}]}),
        )
        .unwrap();
    assert_eq!(f.tools, vec!["read"]);

    let n: MapNamesResponse = Host::new()
        .run(mcphost_map_names_v1, &json!({"tools":[{"server":"a","tool":"b"}],"constraints":{"max_length":64,"pattern":".*"}}))
        .unwrap();
    assert_eq!(n.names, vec!["a_b"]);

    let t: TransformResultResponse = Host::new()
        .run(
            mcphost_transform_result_v1,
            &json!({"server":"s","tool":"t","name":"t","result":{"content":[{"type":"text","text":"hi"}],"x":1}}),
        )
        .unwrap();
    assert_eq!(
        t.result,
        json!({"content":[{"type":"text","text":"HI"}],"x":1})
    );
}

#[test]
fn auth_uses_secret_and_http() {
    let req = AuthRequest {
        server: "s".into(),
        url: "https://idp.example".into(),
        challenge: None,
    };
    let r: AuthResponse = Host::new()
        .secret("token", "s3cret")
        .http(|req| {
            assert_eq!(
                (req.method.as_str(), req.url.as_str()),
                ("POST", "https://idp.example/token")
            );
            assert_eq!(req.body, b"s3cret");
            HttpResponse {
                status: 200,
                body: b"tok".to_vec(),
                ..Default::default()
            }
        })
        .run(mcphost_auth_v1, &req)
        .unwrap();
    assert_eq!(r.headers["Authorization"], "Bearer tok");
    assert_eq!(r.expires_in, 60);

    let err = Host::new()
        .run::<_, AuthResponse>(mcphost_auth_v1, &req)
        .unwrap_err();
    assert_eq!(err, "secret token is not granted");

    // Without a handler the fake host refuses, as the real one does for a
    // host that is not allowed: the plugin sees an Err, not a panic.
    let err = Host::new()
        .secret("token", "x")
        .run::<_, AuthResponse>(mcphost_auth_v1, &req)
        .unwrap_err();
    assert!(err.starts_with("mcphost_http: "), "{err}");
}
