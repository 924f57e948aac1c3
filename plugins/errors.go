package plugins

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Kind classifies a plugin failure. Every failure is an *Error; what the
// chain does with it is the host's business (StageConfig.OnError).
type Kind int

const (
	// KindLoad: the plugin could not be loaded (bad entry, file, hash,
	// module, describe...). Every call of its hooks fails with this kind.
	KindLoad Kind = iota + 1
	// KindGuest: the guest reported an error (error_set and a non-zero
	// return). The instance is healthy and goes back to the pool.
	KindGuest
	// KindTrap: the guest trapped (unreachable, out-of-bounds access, stack
	// overflow, a refused Extism host call). A fault: the instance is
	// discarded.
	KindTrap
	// KindTimeout: the call exceeded timeout_ms. A fault.
	KindTimeout
	// KindMemory: the guest failed at its memory cap (memory_mb). A fault.
	KindMemory
	// KindExit: the guest exited (WASI proc_exit). A fault.
	KindExit
	// KindOutput: the output is over max_output_bytes, not JSON, or not a
	// valid answer for the hook.
	KindOutput
	// KindInput: the request could not be handed to the guest (too large
	// for memory_mb, not encodable).
	KindInput
	// KindCanceled: the caller's context ended first. Not the plugin's fault,
	// but its instance is discarded (the guest was interrupted).
	KindCanceled
	// KindClosed: the plugin (or its Set) was closed.
	KindClosed
)

// NotLoaded reports an error of a plugin that never loaded (KindLoad). The
// host logs those calls at debug: the load failure was reported once.
func (e *Error) NotLoaded() bool { return e.Kind == KindLoad }

func (k Kind) String() string {
	switch k {
	case KindLoad:
		return "load"
	case KindGuest:
		return "error"
	case KindTrap:
		return "trap"
	case KindTimeout:
		return "timeout"
	case KindMemory:
		return "memory"
	case KindExit:
		return "exit"
	case KindOutput:
		return "output"
	case KindInput:
		return "input"
	case KindCanceled:
		return "canceled"
	case KindClosed:
		return "closed"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Fault reports whether the kind is a fault of the guest (trap, timeout,
// out of memory, exit): the instance that ran it was thrown away.
func (k Kind) Fault() bool {
	return k == KindTrap || k == KindTimeout || k == KindMemory || k == KindExit
}

// Error is a failure of one plugin, at load or in one hook call. Its message
// is `plugins: plugin "NAME": hook HOOK: MSG` (no hook part at load).
type Error struct {
	Plugin string
	Hook   abi.Hook // "" for load errors
	Kind   Kind
	Msg    string
	// Err is the underlying error, if any (a wazero trap with its stack
	// trace, a context error, a config error...). It is not part of the
	// message when Msg already says what it is; Detail prints both.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugins: plugin %q: ", e.Plugin)
	if e.Hook != "" {
		fmt.Fprintf(&b, "hook %s: ", e.Hook)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Detail is the message with the underlying error in full (a trap's wasm
// stack trace), for debug logs.
func (e *Error) Detail() string {
	if e.Err == nil {
		return e.Error()
	}
	return e.Error() + "\n" + e.Err.Error()
}

// KindOf returns the Kind of err if it is (or wraps) an *Error, else 0.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// firstLine is the first line of s: wazero appends a multi-line wasm stack
// trace to trap messages, which belongs in debug logs, not in one-line
// errors.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
