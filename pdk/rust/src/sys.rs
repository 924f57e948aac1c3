//! The host boundary: Extism's kernel functions (`extism:host/env`) and
//! mcphost's own host functions (`mcphost:host/v1`).
//!
//! On `wasm32` these are real imports. On every other target (where
//! `cargo test` runs) they are backed by a per-thread fake host, driven by
//! [`crate::testing`], so the whole hook path (input, JSON, output, errors,
//! config, secrets, logs, HTTP) can be tested natively.
//!
//! Memory model: the Extism kernel keeps its own memory, separate from the
//! guest's linear memory, addressed by i64 offsets. Bytes cross in one host
//! call a block: `mcphost_block_read` copies a kernel block (the input is
//! one: `input_offset`) into the guest's memory, `mcphost_block_write`
//! makes a block of guest bytes. The host resets the kernel memory before
//! every call, so blocks are never freed here.

#[cfg(target_arch = "wasm32")]
mod imp {
    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        fn length(offs: u64) -> u64;
        fn input_length() -> u64;
        fn input_offset() -> u64;
        fn output_set(offs: u64, len: u64);
        fn error_set(offs: u64);
        fn config_get(offs: u64) -> u64;
    }

    #[link(wasm_import_module = "mcphost:host/v1")]
    extern "C" {
        fn mcphost_log(level: i32, msg: u64);
        fn mcphost_secret(name: u64) -> u64;
        fn mcphost_http(req: u64) -> u64;
        fn mcphost_block_read(block: u64, dst: *mut u8, len: u32) -> i32;
        fn mcphost_block_write(src: *const u8, len: u32) -> u64;
    }

    /// Copies `data` into a new kernel block and returns its offset (0 for
    /// no bytes: an empty block is no block in Extism's ABI).
    fn put(data: &[u8]) -> u64 {
        if data.is_empty() {
            return 0;
        }
        unsafe { mcphost_block_write(data.as_ptr(), data.len() as u32) }
    }

    /// Reads the `len` bytes of the kernel block at `offs`.
    fn read(offs: u64, len: usize) -> Vec<u8> {
        let mut buf: Vec<u8> = Vec::with_capacity(len);
        if len > 0 {
            let got = unsafe { mcphost_block_read(offs, buf.as_mut_ptr(), len as u32) };
            if got < 0 || got as usize != len {
                panic!("mcphost_block_read failed");
            }
            // SAFETY: the host wrote len bytes.
            unsafe { buf.set_len(len) };
        }
        buf
    }

    /// Reads a whole kernel block; offset 0 means "none".
    fn get(offs: u64) -> Option<Vec<u8>> {
        if offs == 0 {
            return None;
        }
        Some(read(offs, unsafe { length(offs) } as usize))
    }

    pub fn input() -> Vec<u8> {
        unsafe { read(input_offset(), input_length() as usize) }
    }

    pub fn set_output(data: &[u8]) {
        let offs = put(data);
        unsafe { output_set(offs, data.len() as u64) }
    }

    pub fn set_error(msg: &str) {
        let offs = put(msg.as_bytes());
        unsafe { error_set(offs) }
    }

    pub fn config(key: &str) -> Option<Vec<u8>> {
        let k = put(key.as_bytes());
        get(unsafe { config_get(k) })
    }

    pub fn secret(name: &str) -> Option<Vec<u8>> {
        let n = put(name.as_bytes());
        get(unsafe { mcphost_secret(n) })
    }

    pub fn log(level: i32, msg: &str) {
        let m = put(msg.as_bytes());
        unsafe { mcphost_log(level, m) }
    }

    pub fn http(request: &[u8]) -> Option<Vec<u8>> {
        let r = put(request);
        get(unsafe { mcphost_http(r) })
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod imp {
    //! The fake host used by native builds (tests). State is per thread,
    //! which matches how `cargo test` runs tests.
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    pub(crate) type HttpHandler = Box<dyn Fn(&[u8]) -> Option<Vec<u8>>>;

    #[derive(Default)]
    pub(crate) struct FakeHost {
        pub input: Vec<u8>,
        pub output: Option<Vec<u8>>,
        pub error: Option<String>,
        pub config: BTreeMap<String, String>,
        pub secrets: BTreeMap<String, String>,
        pub logs: Vec<(i32, String)>,
        pub http: Option<HttpHandler>,
    }

    thread_local! {
        pub(crate) static HOST: RefCell<FakeHost> = RefCell::new(FakeHost::default());
    }

    pub fn input() -> Vec<u8> {
        HOST.with(|h| h.borrow().input.clone())
    }
    pub fn set_output(data: &[u8]) {
        HOST.with(|h| h.borrow_mut().output = Some(data.to_vec()))
    }
    pub fn set_error(msg: &str) {
        HOST.with(|h| h.borrow_mut().error = Some(msg.to_string()))
    }
    pub fn config(key: &str) -> Option<Vec<u8>> {
        HOST.with(|h| h.borrow().config.get(key).map(|v| v.as_bytes().to_vec()))
    }
    pub fn secret(name: &str) -> Option<Vec<u8>> {
        HOST.with(|h| h.borrow().secrets.get(name).map(|v| v.as_bytes().to_vec()))
    }
    pub fn log(level: i32, msg: &str) {
        HOST.with(|h| h.borrow_mut().logs.push((level, msg.to_string())))
    }
    pub fn http(request: &[u8]) -> Option<Vec<u8>> {
        // The handler runs outside the borrow so it may log or read config.
        let handler = HOST.with(|h| h.borrow_mut().http.take());
        let out = match &handler {
            Some(f) => f(request),
            // Mirrors the host refusing: a response with `error` set.
            None => Some(br#"{"status":0,"error":"no HTTP handler in the test host"}"#.to_vec()),
        };
        HOST.with(|h| h.borrow_mut().http = handler);
        out
    }
}

pub use imp::{config, http, input, log, secret, set_error, set_output};
