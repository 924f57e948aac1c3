package plugins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tetratelabs/wazero/sys"

	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins/internal/kernel"
)

// One hook call on an instance of the pool: running it under its limits,
// and telling what stopped it.

// recoveredPanicPrefix starts the error mcphost's Go PDK reports for a
// panic in a hook handler (pdk.Call).
const recoveredPanicPrefix = "pdk: panic"

// callKey carries the callState of a call to the host functions.
type callKey struct{}

// callState is what the host functions know of the call they serve: its
// hook (for log lines), and counts that bound what one call may do.
type callState struct {
	hook     abi.Hook
	logs     int
	logsLost int
	requests int
}

// run calls export on inst and classifies the outcome. healthy reports
// whether inst may serve another call.
func (p *Plugin) run(ctx context.Context, inst *instance, hook abi.Hook, export string, input []byte, timeout time.Duration, timeoutMsg string) (out []byte, healthy bool, err *Error) {
	fail := func(kind Kind, msg string, under error) *Error {
		return &Error{Plugin: p.name, Hook: hook, Kind: kind, Msg: msg, Err: under}
	}
	st := &callState{hook: hook}
	cctx := context.WithValue(ctx, callKey{}, st)
	var (
		res      kernel.Outcome
		callErr  error
		panicked bool
	)
	func() {
		// The guest cannot panic the host (wazero turns traps and host
		// function panics into errors); this is the last line of defence
		// against a bug in the runtime: it must cost an instance, not the
		// process.
		defer func() {
			if r := recover(); r != nil {
				callErr, panicked = fmt.Errorf("panic in the plugin runtime: %v", r), true
			}
		}()
		res, callErr = inst.k.Call(cctx, export, input, timeout)
	}()
	if st.logsLost > 0 {
		p.log.Warn("log lines dropped (more than the per-call limit)", "hook", hook, "dropped", st.logsLost)
	}
	closed := inst.t.closed.Load()
	if closed {
		// A deadline or cancellation closes the module: the exit code the
		// close notifier saw is the reliable sign, however the error that
		// reports it was wrapped.
		switch inst.t.exitCode.Load() {
		case sys.ExitCodeDeadlineExceeded:
			return nil, false, deadlineError(ctx, fail, timeout, timeoutMsg, callErr)
		case sys.ExitCodeContextCanceled:
			return nil, false, canceledError(ctx, fail)
		}
	}
	if max := p.limits.MaxOutputBytes; max > 0 && res.OutputLen > uint64(max) {
		// Named for what it is, even when making so large an output also
		// ran the guest into its memory cap.
		return nil, callErr == nil, fail(KindOutput, fmt.Sprintf("output of %d bytes exceeds max_output_bytes %d", res.OutputLen, max), callErr)
	}
	if callErr != nil {
		var exit *sys.ExitError
		if errors.As(callErr, &exit) {
			switch exit.ExitCode() {
			case sys.ExitCodeDeadlineExceeded:
				return nil, false, deadlineError(ctx, fail, timeout, timeoutMsg, callErr)
			case sys.ExitCodeContextCanceled:
				return nil, false, canceledError(ctx, fail)
			}
		}
		if oom, size := inst.atCap(); oom {
			return nil, false, fail(KindMemory, p.oomMsg(size, callErr), callErr)
		}
		if exit != nil && !panicked {
			return nil, false, fail(KindExit, fmt.Sprintf("exited with code %d", exit.ExitCode()), callErr)
		}
		return nil, false, fail(KindTrap, "trapped: "+strings.TrimSuffix(firstLine(callErr.Error()), " (recovered by wazero)"), callErr)
	}
	switch {
	case closed:
		return nil, false, fail(KindExit, fmt.Sprintf("exited (WASI proc_exit %d) during the call", inst.t.exitCode.Load()), nil)
	case res.Error != "":
		// A guest-reported error: the instance is fine, unless the error
		// is a panic that the guest recovered (mcphost's Go PDK reports one
		// so): a Go guest that panicked is not trusted with another call.
		return nil, !strings.HasPrefix(res.Error, recoveredPanicPrefix), fail(KindGuest, guestText(res.Error), nil)
	case res.Code != 0:
		return nil, true, fail(KindGuest, fmt.Sprintf("failed with return code %d and no error message", res.Code), nil)
	}
	return res.Output, true, nil
}

// deadlineError is the error of a call stopped at a deadline: the caller's
// (a cancellation) or the call's own timeout (timeoutMsg, or "exceeded
// timeout_ms N" when it is "").
func deadlineError(ctx context.Context, fail func(Kind, string, error) *Error, timeout time.Duration, timeoutMsg string, callErr error) *Error {
	if ctx.Err() != nil {
		return fail(KindCanceled, "canceled: "+ctx.Err().Error(), ctx.Err())
	}
	if timeoutMsg == "" {
		timeoutMsg = fmt.Sprintf("exceeded timeout_ms %d", timeout.Milliseconds())
	}
	return fail(KindTimeout, timeoutMsg, callErr)
}

func canceledError(ctx context.Context, fail func(Kind, string, error) *Error) *Error {
	cause := ctx.Err()
	if cause == nil {
		cause = context.Canceled
	}
	return fail(KindCanceled, "canceled: "+cause.Error(), cause)
}

// atCap reports whether the instance ran out of memory: its guest memory
// or its kernel memory reached memory_mb. size is the memory's size.
func (i *instance) atCap() (bool, uint64) {
	if i.k.KernelRefused() {
		return true, i.k.KernelBytes()
	}
	return i.t.atCap()
}

func (p *Plugin) oomMsg(size uint64, err error) string {
	return fmt.Sprintf("exceeded memory_mb %d (at %.1f MiB; the guest then failed: %s)", p.limits.MemoryMB, float64(size)/mib, firstLine(err.Error()))
}

// guestText makes a guest's text fit for a one-line log or error: bounded
// (4 KiB), valid UTF-8, control characters escaped (a newline could forge a
// log line, an escape sequence could rewrite a terminal).
func guestText(s string) string {
	if len(s) > maxGuestMessage {
		s = s[:maxGuestMessage] + "…"
	}
	return termtext.Line(strings.ToValidUTF8(s, "\uFFFD"))
}

// Result is the raw outcome of one hook call (Invoke).
type Result struct {
	// Output is what the guest returned, not decoded.
	Output   []byte
	Duration time.Duration
	// MemoryBytes is the guest's linear memory after the call (memories
	// never shrink: the instance's peak). KernelMemoryBytes is Extism's
	// kernel memory, where input and output live.
	MemoryBytes       uint64
	KernelMemoryBytes uint64
	// FreshInstance: the call ran on an instance made for it.
	FreshInstance bool
}

// Invoke calls hook with input (JSON, as the ABI defines for the hook) and
// returns the raw output with measurements, without decoding it. It applies
// every limit, like the typed hook methods. Try and Bench are built on it.
func (p *Plugin) Invoke(ctx context.Context, hook abi.Hook, input []byte) (*Result, error) {
	if p.loadErr != nil {
		return nil, &Error{Plugin: p.name, Hook: hook, Kind: KindLoad, Msg: "not loaded: " + p.loadErr.Msg, Err: p.loadErr}
	}
	if !p.hookSet[hook] {
		if !hook.Valid() {
			return nil, &Error{Plugin: p.name, Hook: hook, Kind: KindInput, Msg: "not a hook of ABI v1"}
		}
		return nil, &Error{Plugin: p.name, Hook: hook, Kind: KindLoad, Msg: fmt.Sprintf("the plugin is not loaded for this hook (its hooks: %s)", HookList(p.hooks))}
	}
	if err := ctx.Err(); err != nil {
		// wazero would close the instance for an already-done context.
		return nil, &Error{Plugin: p.name, Hook: hook, Kind: KindCanceled, Msg: "canceled: " + err.Error(), Err: err}
	}
	if int64(len(input)) > p.maxInput {
		return nil, &Error{Plugin: p.name, Hook: hook, Kind: KindInput, Msg: fmt.Sprintf("input of %d bytes is too large for memory_mb %d (at most half of it)", len(input), p.limits.MemoryMB)}
	}
	p.calls.Add(1)
	inst, err := p.pool.get(ctx)
	if err != nil {
		p.failures.Add(1)
		e := asError(p.name, hook, err)
		if e.Kind != KindCanceled && e.Kind != KindClosed {
			e.Msg = "new instance: " + e.Msg
		}
		return nil, e
	}
	start := time.Now()
	out, healthy, cerr := p.run(ctx, inst, hook, hook.Export(), input, p.limits.Timeout, "")
	res := &Result{
		Duration:          time.Since(start),
		MemoryBytes:       inst.t.guest().bytes(),
		KernelMemoryBytes: inst.k.KernelBytes(),
		FreshInstance:     inst.calls == 0,
	}
	inst.calls++
	p.pool.put(inst, healthy)
	if !healthy {
		p.discarded.Add(1)
		p.log.Warn("instance discarded after a fault", "hook", hook, "error", cerr)
		if cerr != nil && cerr.Err != nil {
			p.log.Debug("fault detail", "hook", hook, "detail", cerr.Detail())
		}
	}
	if cerr == nil && int64(len(out)) > p.limits.MaxOutputBytes {
		cerr = &Error{Plugin: p.name, Hook: hook, Kind: KindOutput, Msg: fmt.Sprintf("output of %d bytes exceeds max_output_bytes %d", len(out), p.limits.MaxOutputBytes)}
	}
	if cerr != nil {
		p.failures.Add(1)
		if cerr.Kind.Fault() {
			p.faults.Add(1)
		}
		return res, cerr
	}
	res.Output = out
	return res, nil
}

// asError turns an error from the pool into an *Error for hook.
func asError(plugin string, hook abi.Hook, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Hook = hook
		return &c
	}
	if errors.Is(err, errPoolClosed) {
		return &Error{Plugin: plugin, Hook: hook, Kind: KindClosed, Msg: "closed", Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Plugin: plugin, Hook: hook, Kind: KindCanceled, Msg: "canceled while waiting for a free instance: " + err.Error(), Err: err}
	}
	return &Error{Plugin: plugin, Hook: hook, Kind: KindTrap, Msg: err.Error(), Err: err}
}
