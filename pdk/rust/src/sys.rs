//! The host boundary: Extism's kernel functions (`extism:host/env`) and
//! mcphost's own host functions (`mcphost:host/v1`).
//!
//! On `wasm32` these are real imports. On every other target (where
//! `cargo test` runs) they are backed by a per-thread fake host, driven by
//! [`crate::testing`], so the whole hook path (input, JSON, output, errors,
//! config, secrets, logs, HTTP) can be tested natively.
//!
//! Memory model: the Extism kernel keeps its own memory, separate from the
//! guest's linear memory, addressed by i64 offsets that `alloc` returns.
//! Bytes cross one host call per 8 bytes (`*_u64`) plus one per trailing
//! byte: Extism's ABI has no bulk copy, which is why large payloads cost
//! ~20 ns per byte. The host resets
//! the kernel memory before every call, so blocks are never freed here.

#[cfg(target_arch = "wasm32")]
mod imp {
    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        fn alloc(n: u64) -> u64;
        fn length(offs: u64) -> u64;
        fn load_u8(offs: u64) -> u8;
        fn load_u64(offs: u64) -> u64;
        fn store_u8(offs: u64, v: u8);
        fn store_u64(offs: u64, v: u64);
        fn input_length() -> u64;
        fn input_load_u8(offs: u64) -> u8;
        fn input_load_u64(offs: u64) -> u64;
        fn output_set(offs: u64, len: u64);
        fn error_set(offs: u64);
        fn config_get(offs: u64) -> u64;
    }

    #[link(wasm_import_module = "mcphost:host/v1")]
    extern "C" {
        fn mcphost_log(level: i32, msg: u64);
        fn mcphost_secret(name: u64) -> u64;
        fn mcphost_http(req: u64) -> u64;
    }

    // The copy loops move 64 bytes per iteration (eight host calls): with a
    // timeout set, every loop iteration costs an exit to Go (~22 ns), on top
    // of the host call itself. Buffers are not zero-filled first, for the
    // same reason (a memset is a loop too).

    /// Copies `data` into a new kernel block and returns its offset.
    fn put(data: &[u8]) -> u64 {
        unsafe {
            let offs = alloc(data.len() as u64);
            let word = |i: usize| {
                let mut w = [0u8; 8];
                w.copy_from_slice(&data[i..i + 8]);
                u64::from_le_bytes(w)
            };
            let mut i = 0;
            while i + 64 <= data.len() {
                let at = offs + i as u64;
                store_u64(at, word(i));
                store_u64(at + 8, word(i + 8));
                store_u64(at + 16, word(i + 16));
                store_u64(at + 24, word(i + 24));
                store_u64(at + 32, word(i + 32));
                store_u64(at + 40, word(i + 40));
                store_u64(at + 48, word(i + 48));
                store_u64(at + 56, word(i + 56));
                i += 64;
            }
            while i + 8 <= data.len() {
                store_u64(offs + i as u64, word(i));
                i += 8;
            }
            while i < data.len() {
                store_u8(offs + i as u64, data[i]);
                i += 1;
            }
            offs
        }
    }

    /// Reads `len` bytes through `load8`/`load1` (kernel block or input).
    #[inline(always)]
    unsafe fn read<L8: Fn(u64) -> u64, L1: Fn(u64) -> u8>(
        len: usize,
        base: u64,
        load8: L8,
        load1: L1,
    ) -> Vec<u8> {
        let mut buf: Vec<u8> = Vec::with_capacity(len);
        let p = buf.as_mut_ptr();
        let put8 = |i: usize, w: u64| (p.add(i) as *mut [u8; 8]).write_unaligned(w.to_le_bytes());
        let mut i = 0;
        while i + 64 <= len {
            let at = base + i as u64;
            put8(i, load8(at));
            put8(i + 8, load8(at + 8));
            put8(i + 16, load8(at + 16));
            put8(i + 24, load8(at + 24));
            put8(i + 32, load8(at + 32));
            put8(i + 40, load8(at + 40));
            put8(i + 48, load8(at + 48));
            put8(i + 56, load8(at + 56));
            i += 64;
        }
        while i + 8 <= len {
            put8(i, load8(base + i as u64));
            i += 8;
        }
        while i < len {
            *p.add(i) = load1(base + i as u64);
            i += 1;
        }
        // SAFETY: every byte below len was written above.
        buf.set_len(len);
        buf
    }

    /// Reads a whole kernel block; offset 0 means "none".
    fn get(offs: u64) -> Option<Vec<u8>> {
        if offs == 0 {
            return None;
        }
        unsafe {
            let len = length(offs) as usize;
            Some(read(len, offs, |a| load_u64(a), |a| load_u8(a)))
        }
    }

    pub fn input() -> Vec<u8> {
        unsafe {
            read(
                input_length() as usize,
                0,
                |a| input_load_u64(a),
                |a| input_load_u8(a),
            )
        }
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
