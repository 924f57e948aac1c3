;; sandbox: a guest that reaches for files, the environment, sockets, the clock,
;; randomness and the network, and reports what it got.
;;   policy        deny, with reason
;;                 "prestat=E open=E environ=N args=N sock=E clock=S random=R"
;;                 (E: WASI errno, 0 = success; N: count; S: wall clock
;;                 seconds; R: the first 4 random bytes as a number)
;;   filter_tools  calls Extism's own http_request for the URL in its config
;;                 "url"; mcphost must not let it reach the network
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "config_get" (func $config_get (param i64) (result i64)))
  (import "extism:host/env" "http_request" (func $http_request (param i64 i64) (result i64)))

  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"abi\":1,\"name\":\"sandbox\",\"version\":\"1.0.0\",\"hooks\":[\"policy\",\"filter_tools\"]}\00")
  (data (i32.const 512) "{\"decision\":\"deny\",\"reason\":\"prestat=\00")
  (data (i32.const 600) " open=\00")
  (data (i32.const 616) " environ=\00")
  (data (i32.const 632) " args=\00")
  (data (i32.const 648) " sock=\00")
  (data (i32.const 664) " clock=\00")
  (data (i32.const 680) " random=\00")
  (data (i32.const 696) "\"}\00")
  (data (i32.const 768) "/etc/passwd\00")
  (data (i32.const 800) "url\00")
  (data (i32.const 808) "{\"url\":\"\00")
  (data (i32.const 824) "\"}\00")
  (data (i32.const 832) "{\"tools\":[]}\00")
  ;; scratch for WASI results: 2048..2100

  (func (export "mcphost_describe") (result i32)
    (call $outz (i32.const 0))
    (i32.const 0))

  (func (export "mcphost_policy_v1") (result i32)
    (local $p i32)
    (local.set $p (call $cpy (i32.const 4096) (i32.const 512)))
    ;; the first preopened directory would be fd 3
    (local.set $p (call $itoa (i64.extend_i32_u (call $fd_prestat_get (i32.const 3) (i32.const 2048))) (local.get $p)))
    (local.set $p (call $cpy (local.get $p) (i32.const 600)))
    (local.set $p (call $itoa (i64.extend_i32_u
      (call $path_open (i32.const 3) (i32.const 0) (i32.const 768) (i32.const 11) (i32.const 0)
                       (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 2048)))
      (local.get $p)))
    (local.set $p (call $cpy (local.get $p) (i32.const 616)))
    (drop (call $environ_sizes_get (i32.const 2048) (i32.const 2052)))
    (local.set $p (call $itoa (i64.extend_i32_u (i32.load (i32.const 2048))) (local.get $p)))
    (local.set $p (call $cpy (local.get $p) (i32.const 632)))
    (drop (call $args_sizes_get (i32.const 2048) (i32.const 2052)))
    (local.set $p (call $itoa (i64.extend_i32_u (i32.load (i32.const 2048))) (local.get $p)))
    (local.set $p (call $cpy (local.get $p) (i32.const 648)))
    (local.set $p (call $itoa (i64.extend_i32_u (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 2048))) (local.get $p)))
    (local.set $p (call $cpy (local.get $p) (i32.const 664)))
    (drop (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 2056)))
    (local.set $p (call $itoa (i64.div_u (i64.load (i32.const 2056)) (i64.const 1000000000)) (local.get $p)))
    (local.set $p (call $cpy (local.get $p) (i32.const 680)))
    (drop (call $random_get (i32.const 2064) (i32.const 4)))
    (local.set $p (call $itoa (i64.extend_i32_u (i32.load (i32.const 2064))) (local.get $p)))
    (local.set $p (call $cpy (local.get $p) (i32.const 696)))
    (call $out (i32.const 4096) (i32.sub (local.get $p) (i32.const 4096)))
    (i32.const 0))

  (func (export "mcphost_filter_tools_v1") (result i32)
    (local $key i64) (local $url i64) (local $n i64) (local $req i64) (local $i i64)
    (local.set $key (call $kblock (i32.const 800) (i32.const 3)))
    (local.set $url (call $config_get (local.get $key)))
    (if (i64.ne (local.get $url) (i64.const 0))
      (then (local.set $n (call $length (local.get $url)))))
    ;; {"url":"<url>"} in an Extism block
    (local.set $req (call $alloc (i64.add (local.get $n) (i64.const 10))))
    (loop $pre
      (call $store_u8 (i64.add (local.get $req) (local.get $i))
        (i32.load8_u (i32.add (i32.const 808) (i32.wrap_i64 (local.get $i)))))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br_if $pre (i64.lt_u (local.get $i) (i64.const 8))))
    (local.set $i (i64.const 0))
    (block $done
      (loop $next
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (call $store_u8 (i64.add (local.get $req) (i64.add (local.get $i) (i64.const 8)))
          (call $load_u8 (i64.add (local.get $url) (local.get $i))))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $next)))
    (call $store_u8 (i64.add (local.get $req) (i64.add (local.get $n) (i64.const 8))) (i32.const 34))
    (call $store_u8 (i64.add (local.get $req) (i64.add (local.get $n) (i64.const 9))) (i32.const 125))
    (drop (call $http_request (local.get $req) (i64.const 0)))
    (call $outz (i32.const 832))
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
