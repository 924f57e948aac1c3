;; deep-stack: its policy hook recurses until the call stack is exhausted,
;; which must be a clean error of this plugin, never a crash or a stuck worker.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))

  (memory (export "memory") 1)
  (data (i32.const 0) "{\"abi\":1,\"name\":\"deep-stack\",\"version\":\"1.0.0\",\"hooks\":[\"policy\"]}\00")

  (func (export "mcphost_describe") (result i32)
    (call $outz (i32.const 0))
    (i32.const 0))

  (func $down (param $n i64) (result i64)
    (i64.add (call $down (i64.add (local.get $n) (i64.const 1))) (i64.const 1)))

  (func (export "mcphost_policy_v1") (result i32)
    (drop (call $down (i64.const 0)))
    (i32.const 0))

  ;; ---- helpers (the same in every fixture) ----

  ;; strlen: length of the NUL-terminated string at $p.
  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; kblock: copy $n bytes at $p into a new Extism memory block, 8 bytes per
  ;; host call while they last (as real PDKs do), then byte by byte.
  (func $kblock (param $p i32) (param $n i32) (result i64)
    (local $off i64) (local $i i32)
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done8
      (loop $next8
        (br_if $done8 (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
        (call $store_u64
          (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i64.load (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next8)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $store_u8
          (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $off))

  ;; out: set the $n bytes at $p as the call's output.
  (func $out (param $p i32) (param $n i32)
    (call $output_set (call $kblock (local.get $p) (local.get $n)) (i64.extend_i32_u (local.get $n))))

  ;; outz: set the NUL-terminated string at $p as the call's output.
  (func $outz (param $p i32)
    (call $out (local.get $p) (call $strlen (local.get $p))))
)
