;; probe: calls mcphost's host functions with the input and returns what they
;; answered, for tests that read the raw output (not valid hook answers).
;;   policy        mcphost_secret(input): the value, or "<none>" for 0
;;   filter_tools  mcphost_log(info, input), then {"tools":[]}
;;   auth          mcphost_http(input): the HTTPResponse JSON
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))

  (import "mcphost:host/v1" "mcphost_log" (func $mcphost_log (param i32 i64)))
  (import "mcphost:host/v1" "mcphost_secret" (func $mcphost_secret (param i64) (result i64)))
  (import "mcphost:host/v1" "mcphost_http" (func $mcphost_http (param i64) (result i64)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"abi\":1,\"name\":\"probe\",\"version\":\"1.0.0\",\"hooks\":[\"policy\",\"filter_tools\",\"auth\"]}\00")
  (data (i32.const 512) "<none>\00")
  (data (i32.const 768) "{\"tools\":[]}\00")

  (func (export "mcphost_describe") (result i32)
    (call $outz (i32.const 0))
    (i32.const 0))

  (func (export "mcphost_policy_v1") (result i32)
    (local $v i64)
    (local.set $v (call $mcphost_secret (call $input_block)))
    (if (i64.eqz (local.get $v))
      (then (call $outz (i32.const 512)))
      (else (call $out_block (local.get $v))))
    (i32.const 0))

  (func (export "mcphost_filter_tools_v1") (result i32)
    (call $mcphost_log (i32.const 2) (call $input_block))
    (call $outz (i32.const 768))
    (i32.const 0))

  (func (export "mcphost_auth_v1") (result i32)
    (local $r i64)
    (local.set $r (call $mcphost_http (call $input_block)))
    (if (i64.eqz (local.get $r))
      (then (return (i32.const 1))))
    (call $out_block (local.get $r))
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

  ;; input_block: copy the call's input into a new Extism memory block (host
  ;; functions free the blocks they are given, so the input itself is not passed).
  (func $input_block (result i64)
    (local $n i64) (local $i i64) (local $off i64)
    (local.set $n (call $input_length))
    (local.set $off (call $alloc (local.get $n)))
    (block $done8
      (loop $next8
        (br_if $done8 (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $n)))
        (call $store_u64 (i64.add (local.get $off) (local.get $i)) (call $input_load_u64 (local.get $i)))
        (local.set $i (i64.add (local.get $i) (i64.const 8)))
        (br $next8)))
    (block $done
      (loop $next
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (call $store_u8 (i64.add (local.get $off) (local.get $i)) (call $input_load_u8 (local.get $i)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $next)))
    (local.get $off))

  ;; out_block: set an existing Extism memory block as the output.
  (func $out_block (param $b i64)
    (call $output_set (local.get $b) (call $length (local.get $b))))
)
