;; hostcalls: each hook call loops on one host function, forever, to check
;; that every function a guest can call is charged for its work and stopped
;; at the call's deadline. The first input byte picks the function (its
;; index in the table below: 'a'..'z' are 0..25, 'A'..'Z' are 26..51):
;;   a alloc/free: 200,000 one-byte blocks, then free the last and alloc(1)
;;   b free  c length  d length_unsafe  e load_u8  f load_u64  g store_u8
;;   h store_u64  i input_length  j input_offset  k input_load_u8
;;   l input_load_u64  m input_set  n output_set  o output_length
;;   p output_offset  q error_set  r error_get  s reset  t memory_bytes
;;   u config_get of key "u" (the test sets a large value), freeing it
;;   v var_get of a variable of 1,000,000 bytes, freeing the copy
;;   w var_set of 64 KiB values  x get_log_level  y log_info  z log_trace
;;   A log_debug  B log_warn  C log_error  D mcphost_log
;;   E mcphost_secret of an ungranted name  F mcphost_block_read of 64 KiB
;;   G mcphost_block_write of 64 KiB  H mcphost_http of a bad request
;;   I WASI random_get of 64 KiB
;;   K WASI poll_oneoff of 4096 clock subscriptions
;;   L WASI poll_oneoff of as many as 56 MiB holds (734,003): over the limit
;;   M reset, then alloc of 32 MiB (a new buffer each time)
;;   N no host call: a plain loop, to compare the others with
;;   J alloc(1) until it fails, then a trap, as an allocator aborts: the
;;     blocks' bookkeeping must run into memory_mb, not the host's memory
;; Both policy and auth hooks run it (mcphost_http needs an auth plugin).
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "free" (func $free (param i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "length_unsafe" (func $length_unsafe (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "load_u64" (func $load_u64 (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_offset" (func $input_offset (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "input_set" (func $input_set (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "output_length" (func $output_length (result i64)))
  (import "extism:host/env" "output_offset" (func $output_offset (result i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (import "extism:host/env" "error_get" (func $error_get (result i64)))
  (import "extism:host/env" "reset" (func $reset))
  (import "extism:host/env" "memory_bytes" (func $memory_bytes (result i64)))
  (import "extism:host/env" "config_get" (func $config_get (param i64) (result i64)))
  (import "extism:host/env" "var_get" (func $var_get (param i64) (result i64)))
  (import "extism:host/env" "var_set" (func $var_set (param i64 i64)))
  (import "extism:host/env" "get_log_level" (func $get_log_level (result i32)))
  (import "extism:host/env" "log_info" (func $log_info (param i64)))
  (import "extism:host/env" "log_trace" (func $log_trace (param i64)))
  (import "extism:host/env" "log_debug" (func $log_debug (param i64)))
  (import "extism:host/env" "log_warn" (func $log_warn (param i64)))
  (import "extism:host/env" "log_error" (func $log_error (param i64)))
  (import "mcphost:host/v1" "mcphost_log" (func $mcphost_log (param i32 i64)))
  (import "mcphost:host/v1" "mcphost_secret" (func $mcphost_secret (param i64) (result i64)))
  (import "mcphost:host/v1" "mcphost_block_read" (func $block_read (param i64 i32 i32) (result i32)))
  (import "mcphost:host/v1" "mcphost_block_write" (func $block_write (param i32 i32) (result i64)))
  (import "mcphost:host/v1" "mcphost_http" (func $mcphost_http (param i64) (result i64)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))

  (memory (export "memory") 2)
  (data (i32.const 0) "{\"abi\":1,\"name\":\"hostcalls\",\"version\":\"1.0.0\",\"hooks\":[\"policy\",\"auth\"]}\00")

  ;; a 64 KiB block and a two-byte message block, made before the loop
  (global $blk (mut i64) (i64.const 0))
  (global $msg (mut i64) (i64.const 0))

  (type $case (func))
  (table 40 funcref)
  (elem (i32.const 0)
    $churn $free_ $length_ $length_unsafe_ $load_u8_ $load_u64_ $store_u8_
    $store_u64_ $input_length_ $input_offset_ $input_load_u8_ $input_load_u64_
    $input_set_ $output_set_ $output_length_ $output_offset_ $error_set_
    $error_get_ $reset_ $memory_bytes_ $config_get_ $var_get_ $var_set_
    $get_log_level_ $log_info_ $log_trace_ $log_debug_ $log_warn_ $log_error_
    $mcphost_log_ $mcphost_secret_ $block_read_ $block_write_ $mcphost_http_
    $random_get_ $blocks $poll_oneoff_ $poll_oneoff_huge $reset_alloc $plain)

  (func (export "mcphost_describe") (result i32)
    (local $n i32) (local $off i64) (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (local.get $n))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $store_u8 (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $output_set (local.get $off) (i64.extend_i32_u (local.get $n)))
    (i32.const 0))

  (func (export "mcphost_policy_v1") (result i32) (call $run))
  (func (export "mcphost_auth_v1") (result i32) (call $run))

  (func $run (result i32)
    (local $c i32)
    (local.set $c (call $input_load_u8 (i64.const 0)))
    (global.set $blk (call $alloc (i64.const 65536)))
    (global.set $msg (call $byte (i32.const 104)))
    (call_indirect (type $case)
      (if (result i32) (i32.ge_u (local.get $c) (i32.const 97))
        (then (i32.sub (local.get $c) (i32.const 97)))
        (else (i32.sub (local.get $c) (i32.const 39)))))
    (i32.const 1))

  ;; byte: a new one-byte block holding $b
  (func $byte (param $b i32) (result i64)
    (local $off i64)
    (local.set $off (call $alloc (i64.const 1)))
    (call $store_u8 (local.get $off) (local.get $b))
    (local.get $off))

  (func $churn
    (local $i i32) (local $last i64)
    (loop $make
      (local.set $last (call $alloc (i64.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $make (i32.lt_u (local.get $i) (i32.const 200000))))
    (loop $l
      (call $free (local.get $last))
      (local.set $last (call $alloc (i64.const 1)))
      (br $l)))
  (func $free_ (loop $l (call $free (i64.const 12345)) (br $l)))
  (func $length_ (loop $l (drop (call $length (global.get $blk))) (br $l)))
  (func $length_unsafe_ (loop $l (drop (call $length_unsafe (global.get $blk))) (br $l)))
  (func $load_u8_ (loop $l (drop (call $load_u8 (global.get $blk))) (br $l)))
  (func $load_u64_ (loop $l (drop (call $load_u64 (global.get $blk))) (br $l)))
  (func $store_u8_ (loop $l (call $store_u8 (global.get $blk) (i32.const 1)) (br $l)))
  (func $store_u64_ (loop $l (call $store_u64 (global.get $blk) (i64.const 1)) (br $l)))
  (func $input_length_ (loop $l (drop (call $input_length)) (br $l)))
  (func $input_offset_ (loop $l (drop (call $input_offset)) (br $l)))
  (func $input_load_u8_ (loop $l (drop (call $input_load_u8 (i64.const 0))) (br $l)))
  (func $input_load_u64_ (loop $l (drop (call $input_load_u64 (i64.const 0))) (br $l)))
  (func $input_set_ (loop $l (call $input_set (global.get $blk) (i64.const 65536)) (br $l)))
  (func $output_set_ (loop $l (call $output_set (global.get $blk) (i64.const 65536)) (br $l)))
  (func $output_length_ (loop $l (drop (call $output_length)) (br $l)))
  (func $output_offset_ (loop $l (drop (call $output_offset)) (br $l)))
  (func $error_set_ (loop $l (call $error_set (i64.const 0)) (br $l)))
  (func $error_get_ (loop $l (drop (call $error_get)) (br $l)))
  (func $reset_ (loop $l (call $reset) (br $l)))
  (func $memory_bytes_ (loop $l (drop (call $memory_bytes)) (br $l)))
  (func $config_get_
    (local $key i64)
    (local.set $key (call $byte (i32.const 117)))
    (loop $l (call $free (call $config_get (local.get $key))) (br $l)))
  (func $var_get_
    (call $var_set (call $byte (i32.const 118)) (call $alloc (i64.const 1000000)))
    (loop $l (call $free (call $var_get (call $byte (i32.const 118)))) (br $l)))
  (func $var_set_
    (loop $l (call $var_set (call $byte (i32.const 119)) (call $alloc (i64.const 65536))) (br $l)))
  (func $get_log_level_ (loop $l (drop (call $get_log_level)) (br $l)))
  (func $log_info_ (loop $l (call $log_info (global.get $msg)) (br $l)))
  (func $log_trace_ (loop $l (call $log_trace (global.get $msg)) (br $l)))
  (func $log_debug_ (loop $l (call $log_debug (global.get $msg)) (br $l)))
  (func $log_warn_ (loop $l (call $log_warn (global.get $msg)) (br $l)))
  (func $log_error_ (loop $l (call $log_error (global.get $msg)) (br $l)))
  (func $mcphost_log_ (loop $l (call $mcphost_log (i32.const 2) (call $byte (i32.const 104))) (br $l)))
  (func $mcphost_secret_ (loop $l (call $free (call $mcphost_secret (call $byte (i32.const 120)))) (br $l)))
  (func $block_read_ (loop $l (drop (call $block_read (global.get $blk) (i32.const 65536) (i32.const 65536))) (br $l)))
  (func $block_write_ (loop $l (call $free (call $block_write (i32.const 65536) (i32.const 65536))) (br $l)))
  (func $mcphost_http_ (loop $l (call $free (call $mcphost_http (call $byte (i32.const 123)))) (br $l)))
  (func $random_get_ (loop $l (drop (call $random_get (i32.const 65536) (i32.const 65536))) (br $l)))
;; subscriptions (48 bytes each) from 64 KiB on, then events (32 each)
  (func $poll_oneoff_
    (drop (memory.grow (i32.const 6)))
    (loop $l
      (drop (call $poll_oneoff (i32.const 65536) (i32.const 262144) (i32.const 4096) (i32.const 0)))
      (br $l)))
  (func $poll_oneoff_huge
    (drop (memory.grow (i32.const 896)))
    (drop (call $poll_oneoff (i32.const 65536) (i32.const 35324416) (i32.const 734003) (i32.const 0))))
  (func $reset_alloc
    (loop $l (call $reset) (drop (call $alloc (i64.const 33554432))) (br $l)))
  (func $plain (loop $l (br $l)))
  (func $blocks
    (loop $l (br_if $l (i64.ne (call $alloc (i64.const 1)) (i64.const 0))))
    unreachable)
)
