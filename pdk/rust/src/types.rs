//! The JSON documents of ABI v1, field for field as in `pdk/abi/abi.go`.
//!
//! Mapping rules, so that the Rust and Go sides agree on the wire:
//! - a Go `string` with `omitempty` is a `String` skipped when empty;
//! - a Go pointer with `omitempty` is an `Option` skipped when `None`;
//! - a Go map or slice may arrive as JSON `null` (Go's nil), which reads as
//!   empty here; with `omitempty` it is skipped when empty, as Go does;
//! - a Go `json.RawMessage` is a `serde_json::Value`, so fields this crate
//!   does not know (newer MCP revisions) round-trip untouched;
//! - unknown fields in input are ignored, so a newer host can add fields.

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A JSON object (arguments, `_meta`, ...).
pub type Object = Map<String, Value>;

/// The ABI version this crate implements.
pub const ABI_VERSION: i64 = 1;
/// Import module of mcphost's host functions.
pub const HOST_MODULE: &str = "mcphost:host/v1";
/// The required export that returns a [`Description`].
pub const EXPORT_DESCRIBE: &str = "mcphost_describe";

/// Reads JSON `null` (Go's nil map or slice) as the type's default.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + DeserializeOwned,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// A plugin entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hook {
    Policy,
    FilterTools,
    MapNames,
    TransformResult,
    Auth,
}

impl Hook {
    /// Every hook of ABI v1, in pipeline order.
    pub const ALL: [Hook; 5] = [
        Hook::FilterTools,
        Hook::MapNames,
        Hook::Policy,
        Hook::TransformResult,
        Hook::Auth,
    ];

    /// The hook's name as written in configuration ("transform_result").
    pub fn as_str(self) -> &'static str {
        match self {
            Hook::Policy => "policy",
            Hook::FilterTools => "filter_tools",
            Hook::MapNames => "map_names",
            Hook::TransformResult => "transform_result",
            Hook::Auth => "auth",
        }
    }

    /// The export implementing the hook ("mcphost_transform_result_v1").
    pub fn export(self) -> &'static str {
        match self {
            Hook::Policy => "mcphost_policy_v1",
            Hook::FilterTools => "mcphost_filter_tools_v1",
            Hook::MapNames => "mcphost_map_names_v1",
            Hook::TransformResult => "mcphost_transform_result_v1",
            Hook::Auth => "mcphost_auth_v1",
        }
    }
}

/// Hook names usable in [`describe!`](crate::describe) and
/// [`plugin!`](crate::plugin). Lower case so that the macros can take the
/// same identifier for the hook's export macro and for its value; a typo is
/// a compile error ("cannot find value `polcy` in module `hooks`").
#[allow(non_upper_case_globals)]
pub mod hooks {
    use super::Hook;
    pub const policy: Hook = Hook::Policy;
    pub const filter_tools: Hook = Hook::FilterTools;
    pub const map_names: Hook = Hook::MapNames;
    pub const transform_result: Hook = Hook::TransformResult;
    pub const auth: Hook = Hook::Auth;
}

/// What `mcphost_describe` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Description {
    pub abi: i64,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default, deserialize_with = "null_default")]
    pub hooks: Vec<Hook>,
}

/// Who asked for a call. Empty fields are unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Caller {
    /// "cli", "library" or "gateway".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// A user or client identity (gateway: the authenticated subject).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// The gateway session, when there is one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub session: String,
    /// The OAuth scopes of the caller's access token (gateway).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// The OAuth client the caller's token was issued to (gateway).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub client_id: String,
}

/// The MCP tool hints (all optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    #[serde(rename = "readOnlyHint", default, skip_serializing_if = "is_false")]
    pub read_only_hint: bool,
    #[serde(
        rename = "destructiveHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub destructive_hint: Option<bool>,
    #[serde(rename = "idempotentHint", default, skip_serializing_if = "is_false")]
    pub idempotent_hint: bool,
    #[serde(
        rename = "openWorldHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// The MCP default: a tool is destructive unless it says it is not
    /// (destructiveHint defaults to true), and read-only tools are not.
    /// `None` (no annotations at all) is destructive.
    pub fn destructive(a: Option<&ToolAnnotations>) -> bool {
        match a {
            None => true,
            Some(a) if a.read_only_hint => false,
            Some(a) => a.destructive_hint.unwrap_or(true),
        }
    }

    /// The MCP default: open-world unless it says otherwise.
    pub fn open_world(a: Option<&ToolAnnotations>) -> bool {
        a.and_then(|a| a.open_world_hint).unwrap_or(true)
    }
}

/// Input of the policy hook: one tool call about to be made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyRequest {
    pub server: String,
    pub tool: String,
    /// The public name.
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub arguments: Object,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Map::is_empty"
    )]
    pub meta: Object,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<Caller>,
    /// The tool's pin state when the host pins tools: `"pinned"`, `"new"`
    /// or `"changed"` (ABI.md §4.1); empty when the host does not pin
    /// tools, or is older than the field.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pin: String,
}

impl PolicyRequest {
    /// See [`ToolAnnotations::destructive`].
    pub fn destructive(&self) -> bool {
        ToolAnnotations::destructive(self.annotations.as_ref())
    }
    /// See [`ToolAnnotations::open_world`].
    pub fn open_world(&self) -> bool {
        ToolAnnotations::open_world(self.annotations.as_ref())
    }
}

/// A policy outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Deny,
    Confirm,
}

/// Output of the policy hook. A deny or confirm is an outcome, not an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyDecision {
    pub decision: Decision,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// When present, replaces the call's arguments (a rewrite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Object>,
}

impl PolicyDecision {
    pub fn allow() -> Self {
        PolicyDecision {
            decision: Decision::Allow,
            reason: String::new(),
            arguments: None,
        }
    }
    pub fn deny(reason: impl Into<String>) -> Self {
        PolicyDecision {
            decision: Decision::Deny,
            reason: reason.into(),
            arguments: None,
        }
    }
    pub fn confirm(reason: impl Into<String>) -> Self {
        PolicyDecision {
            decision: Decision::Confirm,
            reason: reason.into(),
            arguments: None,
        }
    }
    /// Replaces the call's arguments.
    pub fn with_arguments(mut self, arguments: Object) -> Self {
        self.arguments = Some(arguments);
        self
    }
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = reason.into();
        self
    }
}

/// One tool as the filter_tools hook sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// The tool's pin state, as [`PolicyRequest::pin`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pin: String,
}

impl ToolInfo {
    /// See [`ToolAnnotations::destructive`].
    pub fn destructive(&self) -> bool {
        ToolAnnotations::destructive(self.annotations.as_ref())
    }
    /// See [`ToolAnnotations::open_world`].
    pub fn open_world(&self) -> bool {
        ToolAnnotations::open_world(self.annotations.as_ref())
    }
}

/// Input of the filter_tools hook: one server's tool list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FilterToolsRequest {
    pub server: String,
    #[serde(default, deserialize_with = "null_default")]
    pub tools: Vec<ToolInfo>,
}

/// Output of the filter_tools hook: the names of the tools to keep.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FilterToolsResponse {
    #[serde(default, deserialize_with = "null_default")]
    pub tools: Vec<String>,
}

/// One tool to name in map_names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NameKey {
    pub server: String,
    pub tool: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
}

/// What every public name must satisfy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NameConstraints {
    #[serde(default)]
    pub max_length: i64,
    #[serde(default)]
    pub pattern: String,
}

/// Input of the map_names hook: every tool of every server at once.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MapNamesRequest {
    #[serde(default, deserialize_with = "null_default")]
    pub tools: Vec<NameKey>,
    #[serde(default)]
    pub constraints: NameConstraints,
}

/// Output of map_names: one public name per input tool, in the same order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MapNamesResponse {
    #[serde(default, deserialize_with = "null_default")]
    pub names: Vec<String>,
}

/// Input of the transform_result hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TransformResultRequest {
    pub server: String,
    pub tool: String,
    pub name: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Map::is_empty"
    )]
    pub arguments: Object,
    /// The MCP CallToolResult exactly as the server (or the previous
    /// transform) produced it. Kept as JSON so unknown fields survive; see
    /// [`crate::content`] for helpers.
    #[serde(default)]
    pub result: Value,
}

/// Output of the transform_result hook: the (possibly changed) result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TransformResultResponse {
    #[serde(default)]
    pub result: Value,
}

impl From<Value> for TransformResultResponse {
    fn from(result: Value) -> Self {
        TransformResultResponse { result }
    }
}

/// What the server answered when it asked for credentials. `status` is 0 on
/// the first connect.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Challenge {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub status: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub www_authenticate: String,
}

/// Input of the auth hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthRequest {
    pub server: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<Challenge>,
}

/// Output of the auth hook. `expires_in` (seconds, 0 = until the next
/// challenge) tells the host when to ask again.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthResponse {
    #[serde(default, deserialize_with = "null_default")]
    pub headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub expires_in: i64,
}

/// Input of the `mcphost_http` host function (auth plugins only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub headers: BTreeMap<String, String>,
    /// Base64 in JSON, as Go encodes `[]byte`.
    #[serde(
        default,
        with = "crate::base64::serde_bytes",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub body: Vec<u8>,
}

/// Output of `mcphost_http`. `error` is set when the host refused the
/// request (host not allowed, private address, redirect off the allow list)
/// or it failed; `status` is then 0.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HttpResponse {
    #[serde(default)]
    pub status: i64,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub headers: BTreeMap<String, String>,
    #[serde(
        default,
        with = "crate::base64::serde_bytes",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub body: Vec<u8>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}
