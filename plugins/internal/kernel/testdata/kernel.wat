;; kernel: exercises the functions of extism:host/env one export at a time,
;; for the kernel package's tests. Not an mcphost plugin (no describe).
;;   echo         copies the input to the output through input_load_* and store_*
;;   echo_direct  output_set(input_offset, input_length)
;;   fail         error_set("it failed"), returns 1
;;   config       the value of config key "greeting"; returns 3 when unset
;;   count        increments variable "n" (one byte) and outputs it
;;   hog          allocates 1 MiB blocks until alloc returns 0; returns 2
;;   oob          store_u64 and load_u64 far outside memory: returns 0 if the
;;                load reads 0 and nothing trapped
;;   reuse        alloc(100), free it, alloc(50): returns 0 if the block was reused
;;   spin         never returns
;;   http         calls http_request (refused: traps)
;;   log          log_info("hello"), log_debug("quiet")
;;   log_loop     log_info("hello") forever
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "free" (func $free (param i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "load_u64" (func $load_u64 (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_offset" (func $input_offset (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (import "extism:host/env" "config_get" (func $config_get (param i64) (result i64)))
  (import "extism:host/env" "var_get" (func $var_get (param i64) (result i64)))
  (import "extism:host/env" "var_set" (func $var_set (param i64 i64)))
  (import "extism:host/env" "http_request" (func $http_request (param i64 i64) (result i64)))
  (import "extism:host/env" "log_info" (func $log_info (param i64)))
  (import "extism:host/env" "log_debug" (func $log_debug (param i64)))

  (memory (export "memory") 1)
  (data (i32.const 0) "it failed\00")
  (data (i32.const 64) "greeting\00")
  (data (i32.const 128) "n\00")
  (data (i32.const 192) "hello\00")
  (data (i32.const 256) "quiet\00")

  (func (export "echo") (result i32)
    (local $n i64) (local $off i64) (local $i i64)
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
    (call $output_set (local.get $off) (local.get $n))
    (i32.const 0))

  (func (export "echo_direct") (result i32)
    (call $output_set (call $input_offset) (call $input_length))
    (i32.const 0))

  (func (export "fail") (result i32)
    (call $error_set (call $blockz (i32.const 0)))
    (i32.const 1))

  (func (export "config") (result i32)
    (local $v i64)
    (local.set $v (call $config_get (call $blockz (i32.const 64))))
    (if (i64.eqz (local.get $v)) (then (return (i32.const 3))))
    (call $output_set (local.get $v) (call $length (local.get $v)))
    (i32.const 0))

  (func (export "count") (result i32)
    (local $v i64) (local $n i32) (local $b i64)
    (local.set $v (call $var_get (call $blockz (i32.const 128))))
    (if (i64.ne (local.get $v) (i64.const 0))
      (then (local.set $n (call $load_u8 (local.get $v)))))
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (local.set $b (call $alloc (i64.const 1)))
    (call $store_u8 (local.get $b) (local.get $n))
    (call $var_set (call $blockz (i32.const 128)) (local.get $b))
    (local.set $b (call $alloc (i64.const 1)))
    (call $store_u8 (local.get $b) (local.get $n))
    (call $output_set (local.get $b) (i64.const 1))
    (i32.const 0))

  (func (export "hog") (result i32)
    (loop $more
      (br_if $more (i64.ne (call $alloc (i64.const 1048576)) (i64.const 0))))
    (i32.const 2))

  (func (export "oob") (result i32)
    (call $store_u64 (i64.const 1099511627776) (i64.const 42))
    (call $store_u8 (i64.const 0) (i32.const 42))
    (i32.wrap_i64 (i64.or
      (call $load_u64 (i64.const 1099511627776))
      (i64.extend_i32_u (call $load_u8 (i64.const 0))))))

  (func (export "reuse") (result i32)
    (local $a i64) (local $b i64)
    (local.set $a (call $alloc (i64.const 100)))
    (call $free (local.get $a))
    (local.set $b (call $alloc (i64.const 50)))
    (i32.eqz (i64.eq (local.get $a) (local.get $b))))

  (func (export "spin") (result i32)
    (loop $forever (br $forever))
    (i32.const 0))

  (func (export "http") (result i32)
    (drop (call $http_request (i64.const 0) (i64.const 0)))
    (i32.const 0))

  (func (export "log") (result i32)
    (call $log_info (call $blockz (i32.const 192)))
    (call $log_debug (call $blockz (i32.const 256)))
    (i32.const 0))

  (func (export "log_loop") (result i32)
    (local $b i64)
    (local.set $b (call $blockz (i32.const 192)))
    (loop $forever
      (call $log_info (local.get $b))
      (br $forever))
    (i32.const 0))

  ;; blockz: a new kernel block holding the NUL-terminated string at $p.
  (func $blockz (param $p i32) (result i64)
    (local $n i32) (local $off i64) (local $i i32)
    (block $len
      (loop $next
        (br_if $len (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $store_u8
          (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (local.get $off))
)
