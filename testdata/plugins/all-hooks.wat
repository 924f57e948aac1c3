;; all-hooks: a valid plugin with every hook of ABI v1, for the conformance kit
;; and the concurrency test.
;;   policy           allow, with reason "<input length>:<sum of input bytes>" so
;;                    that a caller can tell its answer from another call's
;;   filter_tools     keeps no tool (the empty list is a subset of any list)
;;   map_names        one name per input tool: t0, t1, ... (it counts the
;;                    "server": keys of the input)
;;   transform_result a fixed text result
;;   auth             a fixed Authorization header
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))

  (memory (export "memory") 2)
  (data (i32.const 0) "{\"abi\":1,\"name\":\"all-hooks\",\"version\":\"1.0.0\",\"hooks\":[\"policy\",\"filter_tools\",\"map_names\",\"transform_result\",\"auth\"]}\00")
  (data (i32.const 512) "{\"decision\":\"allow\",\"reason\":\"\00")
  (data (i32.const 640) "\"}\00")
  (data (i32.const 768) "{\"tools\":[]}\00")
  (data (i32.const 1024) "{\"names\":[\00")
  (data (i32.const 1088) "]}\00")
  (data (i32.const 1152) "\"server\":\00")
  (data (i32.const 1280) "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"transformed\"}]}}\00")
  (data (i32.const 1536) "{\"headers\":{\"Authorization\":\"Bearer all-hooks\"},\"expires_in\":60}\00")

  (func (export "mcphost_describe") (result i32)
    (call $outz (i32.const 0))
    (i32.const 0))

  (func (export "mcphost_policy_v1") (result i32)
    (local $n i64) (local $i i64) (local $sum i64) (local $p i32) (local $w i64) (local $k i32)
    (local.set $n (call $input_length))
    ;; 8 bytes per host call while they last
    (block $done8
      (loop $next8
        (br_if $done8 (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $n)))
        (local.set $w (call $input_load_u64 (local.get $i)))
        (local.set $k (i32.const 0))
        (loop $byte
          (local.set $sum (i64.add (local.get $sum) (i64.and (local.get $w) (i64.const 255))))
          (local.set $w (i64.shr_u (local.get $w) (i64.const 8)))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br_if $byte (i32.lt_u (local.get $k) (i32.const 8))))
        (local.set $i (i64.add (local.get $i) (i64.const 8)))
        (br $next8)))
    (block $done
      (loop $next
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (local.set $sum (i64.add (local.get $sum)
          (i64.extend_i32_u (call $input_load_u8 (local.get $i)))))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $next)))
    (local.set $p (call $cpy (i32.const 4096) (i32.const 512)))
    (local.set $p (call $itoa (local.get $n) (local.get $p)))
    (i32.store8 (local.get $p) (i32.const 58)) ;; ':'
    (local.set $p (call $itoa (local.get $sum) (i32.add (local.get $p) (i32.const 1))))
    (local.set $p (call $cpy (local.get $p) (i32.const 640)))
    (call $out (i32.const 4096) (i32.sub (local.get $p) (i32.const 4096)))
    (i32.const 0))

  (func (export "mcphost_filter_tools_v1") (result i32)
    (call $outz (i32.const 768))
    (i32.const 0))

  (func (export "mcphost_map_names_v1") (result i32)
    (local $n i32) (local $i i32) (local $j i32) (local $count i32) (local $k i32)
    (local $in i32) (local $p i32) (local $need i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    ;; room for the input at 64 KiB and the output after it
    (local.set $in (i32.const 65536))
    (local.set $need (i32.add (i32.const 1)
      (i32.div_u (i32.add (i32.add (local.get $in) (i32.mul (local.get $n) (i32.const 3))) (i32.const 1024))
                 (i32.const 65536))))
    (if (i32.gt_u (local.get $need) (memory.size))
      (then (drop (memory.grow (i32.sub (local.get $need) (memory.size))))))
    (block $done8
      (loop $next8
        (br_if $done8 (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
        (i64.store (i32.add (local.get $in) (local.get $i))
          (call $input_load_u64 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next8)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (local.get $in) (local.get $i))
          (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    ;; count the "server": keys (9 bytes at 1152)
    (local.set $i (i32.const 0))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 9)) (local.get $n)))
        (local.set $j (i32.const 0))
        (block $nomatch
          (loop $cmp
            (br_if $nomatch (i32.ne
              (i32.load8_u (i32.add (i32.add (local.get $in) (local.get $i)) (local.get $j)))
              (i32.load8_u (i32.add (i32.const 1152) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br_if $cmp (i32.lt_u (local.get $j) (i32.const 9))))
          (local.set $count (i32.add (local.get $count) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.set $p (call $cpy (i32.add (local.get $in) (local.get $n)) (i32.const 1024)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (if (i32.gt_u (local.get $k) (i32.const 0))
          (then
            (i32.store8 (local.get $p) (i32.const 44)) ;; ','
            (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (i32.store8 (local.get $p) (i32.const 34)) ;; '"'
        (i32.store8 (i32.add (local.get $p) (i32.const 1)) (i32.const 116)) ;; 't'
        (local.set $p (call $itoa (i64.extend_i32_u (local.get $k)) (i32.add (local.get $p) (i32.const 2))))
        (i32.store8 (local.get $p) (i32.const 34))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (local.set $p (call $cpy (local.get $p) (i32.const 1088)))
    (call $out (i32.add (local.get $in) (local.get $n))
               (i32.sub (local.get $p) (i32.add (local.get $in) (local.get $n))))
    (i32.const 0))

  (func (export "mcphost_transform_result_v1") (result i32)
    (call $outz (i32.const 1280))
    (i32.const 0))

  (func (export "mcphost_auth_v1") (result i32)
    (call $outz (i32.const 1536))
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

  ;; cpy: copy the NUL-terminated string at $s to $d (without the NUL); returns the end.
  (func $cpy (param $d i32) (param $s i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (local.get $s))))
        (i32.store8 (local.get $d) (i32.load8_u (local.get $s)))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $next)))
    (local.get $d))

  ;; itoa: write the decimal digits of $v at $p; returns the end.
  (func $itoa (param $v i64) (param $p i32) (result i32)
    (local $start i32) (local $end i32) (local $t i32)
    (local.set $start (local.get $p))
    (loop $digit
      (i32.store8 (local.get $p)
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $v) (i64.const 10)))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $digit (i64.ne (local.get $v) (i64.const 0))))
    (local.set $end (local.get $p))
    ;; the digits came out backwards: reverse [start, end)
    (local.set $p (i32.sub (local.get $p) (i32.const 1)))
    (block $done
      (loop $swap
        (br_if $done (i32.ge_u (local.get $start) (local.get $p)))
        (local.set $t (i32.load8_u (local.get $start)))
        (i32.store8 (local.get $start) (i32.load8_u (local.get $p)))
        (i32.store8 (local.get $p) (local.get $t))
        (local.set $start (i32.add (local.get $start) (i32.const 1)))
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (br $swap)))
    (local.get $end))
)
