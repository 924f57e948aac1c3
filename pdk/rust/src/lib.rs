//! # mcphost-pdk
//!
//! The guest library for mcphost plugins written in Rust: typed requests and
//! decisions of ABI v1, hook registration, configuration, secrets, logging
//! and (for auth plugins) HTTP through the host. `pdk/abi/ABI.md` is the
//! normative contract; the types here mirror `pdk/abi/abi.go` field for
//! field.
//!
//! A plugin is a `cdylib` built for `wasm32-unknown-unknown` (no WASI
//! needed):
//!
//! ```no_run
//! use mcphost_pdk::{PolicyDecision, PolicyRequest};
//!
//! fn policy(req: PolicyRequest) -> Result<PolicyDecision, mcphost_pdk::Error> {
//!     if req.destructive() {
//!         return Ok(PolicyDecision::confirm(format!("{} is destructive", req.tool)));
//!     }
//!     Ok(PolicyDecision::allow())
//! }
//!
//! mcphost_pdk::plugin! {
//!     name: "confirm-destructive",
//!     version: env!("CARGO_PKG_VERSION"),
//!     hooks: { policy: policy },
//! }
//! ```
//!
//! `plugin!` generates `mcphost_describe` and one export per hook, so the
//! description always matches the exports (the host refuses a mismatch).
//! [`describe!`] and the per-hook macros ([`policy!`], [`filter_tools!`],
//! [`map_names!`], [`transform_result!`], [`auth!`]) are the same building
//! blocks, usable on their own.
//!
//! A hook function takes the request and returns `Result<Response, E>` for
//! any `E: Display`. `Ok` is written as the output (return code 0); `Err`
//! becomes an Extism error (`error_set`, return code 1), which the host
//! treats as a *plugin error* and handles by the entry's `on_error`. A deny
//! is an outcome, not an error: return `Ok(PolicyDecision::deny(..))`.
//!
//! ## Panics are faults
//!
//! `wasm32-unknown-unknown` aborts on panic: the instance traps, the host
//! reports a *plugin fault* and throws the instance away (a fresh one serves
//! the next call). The wrappers install a panic hook that sends the panic
//! message to the host log first, so the fault is explained, but prefer
//! returning `Err` over `unwrap()`/indexing that can panic.
//!
//! ## Testing natively
//!
//! On non-wasm targets the host imports are replaced by a per-thread fake
//! host, so `cargo test` exercises the real export functions: see
//! [`testing`].

mod base64;
pub mod content;
mod json;
pub mod scan;
mod sys;
mod types;

pub use crate::base64::{decode as base64_decode, encode as base64_encode};
pub use serde_json::{self, json, Map, Value};
pub use types::*;

use std::fmt;

/// An error a hook returns to the host. Any `Display` type works as a hook
/// error; this one converts from strings and JSON errors so `?` is handy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    pub fn new(msg: impl Into<String>) -> Self {
        Error(msg.into())
    }
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Error {
    fn from(s: String) -> Self {
        Error(s)
    }
}

impl From<&str> for Error {
    fn from(s: &str) -> Self {
        Error(s.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error(e.to_string())
    }
}

/// Plugin configuration: the `config` key/values of the plugin's entry in
/// mcphost's configuration (Extism's `config_get`).
///
/// Each key is fetched from the host once per instance and then cached: a
/// fetch costs several round trips into Extism's kernel (~12 µs), and the
/// host fixes an instance's configuration when it creates it (changing a
/// plugin's configuration means loading it again).
pub mod config {
    use super::Error;
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::str::FromStr;

    thread_local! {
        static CACHE: RefCell<BTreeMap<String, Option<String>>> = RefCell::new(BTreeMap::new());
    }

    /// Forgets cached values (the fake host changes config between calls).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn clear_cache() {
        CACHE.with(|c| c.borrow_mut().clear());
    }

    /// The value of `key`, or `None` when the configuration does not set it.
    /// An empty value also reads as `None`: Extism's kernel has no empty
    /// memory block, so the host cannot hand one over.
    pub fn get(key: &str) -> Option<String> {
        if let Some(v) = CACHE.with(|c| c.borrow().get(key).cloned()) {
            return v;
        }
        let v = crate::sys::config(key).map(|b| String::from_utf8_lossy(&b).into_owned());
        CACHE.with(|c| c.borrow_mut().insert(key.to_string(), v.clone()));
        v
    }

    /// The value of `key` parsed as `T`; `None` when unset, an error naming
    /// the key when it does not parse. Surrounding spaces are ignored.
    pub fn parse<T: FromStr>(key: &str) -> Result<Option<T>, Error>
    where
        T::Err: std::fmt::Display,
    {
        match get(key) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|e| Error::new(format!("config {key}={v:?}: {e}"))),
        }
    }

    /// Like [`parse`], with a default for an unset key.
    pub fn parse_or<T: FromStr>(key: &str, default: T) -> Result<T, Error>
    where
        T::Err: std::fmt::Display,
    {
        Ok(parse(key)?.unwrap_or(default))
    }

    /// A boolean: true/false, yes/no, on/off, 1/0 (any case).
    pub fn flag(key: &str, default: bool) -> Result<bool, Error> {
        match get(key) {
            None => Ok(default),
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(true),
                "false" | "no" | "off" | "0" => Ok(false),
                _ => Err(Error::new(format!(
                    "config {key}={v:?}: want true or false"
                ))),
            },
        }
    }

    /// A comma-separated list, items trimmed, empty items dropped; `None`
    /// when unset.
    pub fn list(key: &str) -> Option<Vec<String>> {
        get(key).map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
    }
}

/// The secret the plugin's configuration grants under `name` (its `secrets`
/// list), or `None` when it is not granted, not set or empty (Extism's kernel
/// has no empty memory block). Never log it.
pub fn secret(name: &str) -> Option<String> {
    sys::secret(name).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Log levels of `mcphost_log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum Level {
    Trace = 0,
    Debug = 1,
    Info = 2,
    Warn = 3,
    Error = 4,
}

/// Writes `msg` to the host's log at `level`, tagged with the plugin name.
pub fn log(level: Level, msg: &str) {
    sys::log(level as i32, msg)
}

/// `log!(Level::Info, "format {}", args)`: formats and logs.
#[macro_export]
macro_rules! log {
    ($level:expr, $($arg:tt)+) => {
        $crate::log($level, &::std::format!($($arg)+))
    };
}

/// HTTP through the host, for auth plugins only: the host allows only the
/// entry's `allowed_hosts`, re-checks every redirect and refuses private
/// addresses unless allowed. Extism's own `http_request` is not offered.
pub mod http {
    use super::{Error, HttpRequest, HttpResponse};

    /// Sends `req`. A request the host refused or that failed (the response's
    /// `error` field) is an `Err` with the host's message; any HTTP status,
    /// 4xx and 5xx included, is `Ok`.
    pub fn request(req: &HttpRequest) -> Result<HttpResponse, Error> {
        let body = serde_json::to_vec(req)?;
        let raw = crate::sys::http(&body)
            .ok_or_else(|| Error::new("mcphost_http: no response from the host"))?;
        let resp: HttpResponse = serde_json::from_slice(&raw)
            .map_err(|e| Error::new(format!("mcphost_http: invalid response: {e}")))?;
        if !resp.error.is_empty() {
            return Err(Error::new(format!("mcphost_http: {}", resp.error)));
        }
        Ok(resp)
    }

    /// A GET with the given headers.
    pub fn get(url: &str, headers: &[(&str, &str)]) -> Result<HttpResponse, Error> {
        request(&HttpRequest {
            method: "GET".into(),
            url: url.into(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
        })
    }
}

/// Used by the macros; not part of the stable API.
#[doc(hidden)]
pub mod __private {
    pub use super::sys::{input, set_error, set_output};
    use super::{sys, Description, Hook, ABI_VERSION};
    use serde::de::DeserializeOwned;
    use std::fmt::Display;

    #[cfg(target_arch = "wasm32")]
    fn install_panic_hook() {
        use std::sync::atomic::{AtomicBool, Ordering};
        static DONE: AtomicBool = AtomicBool::new(false);
        if DONE.swap(true, Ordering::Relaxed) {
            return;
        }
        // The trap that follows a panic carries no message; the host log does.
        std::panic::set_hook(Box::new(|info| {
            let msg = format!("plugin panicked (the call traps): {info}");
            sys::log(crate::Level::Error as i32, &msg);
        }));
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn install_panic_hook() {}

    fn fail(msg: &str) -> i32 {
        sys::set_error(msg);
        1
    }

    /// How a hook's output becomes JSON. Everything goes through serde_json
    /// except the transform_result output, which can be large (see json.rs).
    pub trait Output {
        fn to_json(&self) -> Result<Vec<u8>, serde_json::Error>;
    }

    macro_rules! serde_output {
        ($($t:ty),*) => {$(
            impl Output for $t {
                fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
                    serde_json::to_vec(self)
                }
            }
        )*};
    }
    serde_output!(
        Description,
        crate::PolicyDecision,
        crate::FilterToolsResponse,
        crate::MapNamesResponse,
        crate::AuthResponse
    );

    impl Output for crate::TransformResultResponse {
        fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
            let mut out = Vec::with_capacity(64);
            out.extend_from_slice(b"{\"result\":");
            crate::json::write_value(&mut out, &self.result);
            out.push(b'}');
            Ok(out)
        }
    }

    fn write<O: Output>(what: &str, out: &O) -> i32 {
        match out.to_json() {
            Ok(b) => {
                sys::set_output(&b);
                0
            }
            Err(e) => fail(&format!("{what}: cannot encode output: {e}")),
        }
    }

    pub fn run_describe(name: &str, version: &str, hooks: &[Hook]) -> i32 {
        let d = Description {
            abi: ABI_VERSION,
            name: name.to_string(),
            version: version.to_string(),
            hooks: hooks.to_vec(),
        };
        write("mcphost_describe", &d)
    }

    pub fn run_hook<I, O, E, F>(hook: Hook, f: F) -> i32
    where
        I: DeserializeOwned,
        O: Output,
        E: Display,
        F: FnOnce(I) -> Result<O, E>,
    {
        install_panic_hook();
        let input = sys::input();
        let req: I = match serde_json::from_slice(&input) {
            Ok(r) => r,
            Err(e) => return fail(&format!("{}: invalid input: {e}", hook.export())),
        };
        match f(req) {
            Ok(out) => write(hook.export(), &out),
            Err(e) => fail(&e.to_string()),
        }
    }
}

/// Declares the plugin: `mcphost_describe` plus one export per hook.
///
/// ```no_run
/// # use mcphost_pdk::*;
/// # fn transform(r: TransformResultRequest) -> Result<TransformResultResponse, Error> { Ok(r.result.into()) }
/// mcphost_pdk::plugin! {
///     name: "my-plugin",
///     version: "0.1.0",
///     hooks: { transform_result: transform },
/// }
/// ```
///
/// Hook names: `policy`, `filter_tools`, `map_names`, `transform_result`,
/// `auth`. Each hook function has the signature of the matching hook macro.
#[macro_export]
macro_rules! plugin {
    (name: $name:expr, version: $version:expr, hooks: { $($hook:ident : $f:expr),+ $(,)? } $(,)?) => {
        $crate::describe!($name, $version, [$($hook),+]);
        $($crate::$hook!($f);)+
    };
}

/// Generates `mcphost_describe`: `describe!("name", "0.1.0", [policy, auth])`.
/// Prefer [`plugin!`], which keeps this list and the exports in step. The
/// host requires every described hook to be exported (it may export more).
#[macro_export]
macro_rules! describe {
    // At least one hook: the host refuses a description without any.
    ($name:expr, $version:expr, [$($hook:ident),+ $(,)?]) => {
        #[no_mangle]
        pub extern "C" fn mcphost_describe() -> i32 {
            $crate::__private::run_describe($name, $version, &[$($crate::hooks::$hook),*])
        }
    };
}

/// Generates `mcphost_policy_v1` from
/// `fn(PolicyRequest) -> Result<PolicyDecision, E: Display>`.
#[macro_export]
macro_rules! policy {
    ($f:expr) => {
        #[no_mangle]
        pub extern "C" fn mcphost_policy_v1() -> i32 {
            $crate::__private::run_hook::<$crate::PolicyRequest, $crate::PolicyDecision, _, _>(
                $crate::Hook::Policy,
                $f,
            )
        }
    };
}

/// Generates `mcphost_filter_tools_v1` from
/// `fn(FilterToolsRequest) -> Result<FilterToolsResponse, E: Display>`.
#[macro_export]
macro_rules! filter_tools {
    ($f:expr) => {
        #[no_mangle]
        pub extern "C" fn mcphost_filter_tools_v1() -> i32 {
            $crate::__private::run_hook::<
                $crate::FilterToolsRequest,
                $crate::FilterToolsResponse,
                _,
                _,
            >($crate::Hook::FilterTools, $f)
        }
    };
}

/// Generates `mcphost_map_names_v1` from
/// `fn(MapNamesRequest) -> Result<MapNamesResponse, E: Display>`.
#[macro_export]
macro_rules! map_names {
    ($f:expr) => {
        #[no_mangle]
        pub extern "C" fn mcphost_map_names_v1() -> i32 {
            $crate::__private::run_hook::<$crate::MapNamesRequest, $crate::MapNamesResponse, _, _>(
                $crate::Hook::MapNames,
                $f,
            )
        }
    };
}

/// Generates `mcphost_transform_result_v1` from
/// `fn(TransformResultRequest) -> Result<TransformResultResponse, E: Display>`.
#[macro_export]
macro_rules! transform_result {
    ($f:expr) => {
        #[no_mangle]
        pub extern "C" fn mcphost_transform_result_v1() -> i32 {
            $crate::__private::run_hook::<
                $crate::TransformResultRequest,
                $crate::TransformResultResponse,
                _,
                _,
            >($crate::Hook::TransformResult, $f)
        }
    };
}

/// Generates `mcphost_auth_v1` from
/// `fn(AuthRequest) -> Result<AuthResponse, E: Display>`.
#[macro_export]
macro_rules! auth {
    ($f:expr) => {
        #[no_mangle]
        pub extern "C" fn mcphost_auth_v1() -> i32 {
            $crate::__private::run_hook::<$crate::AuthRequest, $crate::AuthResponse, _, _>(
                $crate::Hook::Auth,
                $f,
            )
        }
    };
}

#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
