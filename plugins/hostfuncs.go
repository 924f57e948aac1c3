package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/hashicorp/go-hclog"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins/internal/kernel"
)

// mcphost's host functions, in module abi.HostModule. They never trap on
// the guest's behalf: a bad pointer or request is answered with 0 or an
// error response, so that only the guest's own faults cost an instance.
// Every memory block the guest passes in is freed here (the ABI says the
// host frees it), whether or not it could be read.

const (
	// maxLogLines bounds the log lines of one call; the rest are counted
	// and reported once.
	maxLogLines = 64
	// maxSecretName bounds a secret name read from the guest.
	maxSecretName = 256
	// maxHTTPRequests bounds mcphost_http calls per hook call.
	maxHTTPRequests = 8
	// maxHTTPRequestJSON bounds the request document (its body is base64).
	maxHTTPRequestJSON = 2 * maxHTTPBody
)

func (p *Plugin) hostFunctions(withHTTP bool) []kernel.HostFunc {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	fn := func(name string, params, results []api.ValueType, f func(context.Context, *kernel.Instance, []uint64)) kernel.HostFunc {
		return kernel.HostFunc{Module: abi.HostModule, Name: name, Params: params, Results: results, Fn: f}
	}
	fns := []kernel.HostFunc{
		fn(abi.FuncLog, []api.ValueType{i32, i64}, nil, p.hostLog),
		fn(abi.FuncSecret, []api.ValueType{i64}, []api.ValueType{i64}, p.hostSecret),
		fn(abi.FuncBlockRead, []api.ValueType{i64, i32, i32}, []api.ValueType{i32}, hostBlockRead),
		fn(abi.FuncBlockWrite, []api.ValueType{i32, i32}, []api.ValueType{i64}, hostBlockWrite),
	}
	if withHTTP {
		fns = append(fns, fn(abi.FuncHTTP, []api.ValueType{i64}, []api.ValueType{i64}, p.hostHTTP))
	}
	return fns
}

// readBlock reads up to limit bytes of the kernel block at off and frees the
// block. ok is false for an offset that is not a block; n is the block's
// full length.
func readBlock(k *kernel.Instance, off uint64, limit int) (data []byte, n uint64, ok bool) {
	if off == 0 || off > math.MaxUint32 {
		return nil, 0, false
	}
	buf, ok := k.Block(off)
	if !ok {
		return nil, 0, false
	}
	n = uint64(len(buf))
	if len(buf) > limit {
		buf = buf[:limit]
	}
	k.Charge(uint64(len(buf)))
	data = append([]byte(nil), buf...)
	k.Free(off)
	return data, n, true
}

// hostBlockRead: (block i64, dst i32, len i32) -> (n i32), -1 for a bad
// block or destination.
func hostBlockRead(_ context.Context, k *kernel.Instance, stack []uint64) {
	block, dst, n := stack[0], uint32(stack[1]), uint32(stack[2])
	data, ok := k.Block(block)
	if ok && uint64(len(data)) < uint64(n) {
		n = uint32(len(data))
	}
	k.Charge(uint64(n))
	mem := k.GuestMemory()
	if !ok || mem == nil || !mem.Write(dst, data[:n]) {
		stack[0] = api.EncodeI32(-1)
		return
	}
	stack[0] = uint64(n)
}

// hostBlockWrite: (src i32, len i32) -> (block i64), 0 for a bad source or
// no room.
func hostBlockWrite(_ context.Context, k *kernel.Instance, stack []uint64) {
	src, n := uint32(stack[0]), uint32(stack[1])
	stack[0] = 0
	k.Charge(uint64(n))
	if mem := k.GuestMemory(); mem != nil {
		if data, ok := mem.Read(src, n); ok {
			stack[0] = k.Put(data)
		}
	}
}

// extismLog takes what a guest logs with Extism's log_* functions (a guest
// built with an Extism PDK): into the host's log like mcphost_log.
func (p *Plugin) extismLog(ctx context.Context, _ *kernel.Instance, level kernel.Level, msg []byte) {
	n := uint64(len(msg))
	if len(msg) > maxGuestMessage {
		msg = msg[:maxGuestMessage]
	}
	p.logGuest(ctx, int32(level), msg, n, true)
}

// hostLog: (level i32, message i64) -> ().
func (p *Plugin) hostLog(ctx context.Context, k *kernel.Instance, stack []uint64) {
	data, n, ok := readBlock(k, stack[1], maxGuestMessage)
	p.logGuest(ctx, int32(uint32(stack[0])), data, n, ok)
}

// hostLine logs what a host function has to say about a guest's call of
// it, within the call's budget of log lines (maxLogLines, shared with the
// guest's own), so that a guest calling it in a loop cannot flood the log.
func (p *Plugin) hostLine(ctx context.Context, level hclog.Level, msg string, args ...any) {
	if log, ok := p.callLog(ctx); ok {
		log.Log(level, msg, args...)
	}
}

// callLog takes one line of the call's budget: the logger for it, naming
// the hook, or false when the budget is spent (the line is counted as
// dropped, and reported once after the call).
func (p *Plugin) callLog(ctx context.Context) (hclog.Logger, bool) {
	st, _ := ctx.Value(callKey{}).(*callState)
	if st == nil {
		return p.log, true
	}
	if st.logs >= maxLogLines {
		st.logsLost++
		return nil, false
	}
	st.logs++
	if st.hook != "" {
		return p.log.With("hook", st.hook), true
	}
	return p.log, true
}

// logGuest writes a guest's log line of level (abi.Log*): data is the
// message, cut from n bytes; !ok is a bad message pointer.
func (p *Plugin) logGuest(ctx context.Context, level int32, data []byte, n uint64, ok bool) {
	log, within := p.callLog(ctx)
	if !within {
		return
	}
	if !ok {
		log.Warn("mcphost_log: bad message pointer")
		return
	}
	msg := guestText(string(data))
	if n > uint64(len(data)) {
		msg += fmt.Sprintf(" (%d bytes cut)", n-uint64(len(data)))
	}
	switch level {
	case abi.LogTrace:
		log.Trace(msg)
	case abi.LogDebug:
		log.Debug(msg)
	case abi.LogInfo:
		log.Info(msg)
	case abi.LogWarn:
		log.Warn(msg)
	default:
		log.Error(msg)
	}
}

// hostSecret: (name i64) -> (value i64). Only the names the configuration
// grants; values are never logged.
func (p *Plugin) hostSecret(ctx context.Context, k *kernel.Instance, stack []uint64) {
	off := stack[0]
	stack[0] = 0
	data, n, ok := readBlock(k, off, maxSecretName)
	if !ok || n > maxSecretName {
		p.hostLine(ctx, hclog.Warn, "mcphost_secret: bad secret name")
		return
	}
	name := string(data)
	v, granted := p.spec.Secrets[name]
	if !granted {
		p.hostLine(ctx, hclog.Debug, "mcphost_secret: not granted", "secret", guestText(name))
		return
	}
	val := k.Put([]byte(v))
	if val == 0 && v != "" {
		p.hostLine(ctx, hclog.Warn, "mcphost_secret: no room in the kernel memory for the value (memory_mb)", "secret", name)
		return
	}
	stack[0] = val
}

// hostHTTP: (request i64) -> (response i64), auth plugins only. Refusals and
// failures are responses with Error set.
func (p *Plugin) hostHTTP(ctx context.Context, k *kernel.Instance, stack []uint64) {
	resp := p.doHTTP(ctx, k, stack[0])
	if resp.Error != "" {
		p.hostLine(ctx, hclog.Warn, "mcphost_http: "+resp.Error)
	}
	data, err := json.Marshal(resp)
	if err != nil {
		data = []byte(`{"status":0,"error":"cannot encode the response"}`)
	}
	k.Charge(uint64(len(data)))
	off := k.Put(data)
	if off == 0 {
		p.hostLine(ctx, hclog.Warn, "mcphost_http: no room in the kernel memory for the response (memory_mb)")
	}
	stack[0] = off
}

func (p *Plugin) doHTTP(ctx context.Context, k *kernel.Instance, off uint64) *abi.HTTPResponse {
	refuse := func(format string, args ...any) *abi.HTTPResponse {
		return &abi.HTTPResponse{Error: fmt.Sprintf(format, args...)}
	}
	data, n, ok := readBlock(k, off, maxHTTPRequestJSON)
	if !ok {
		return refuse("bad request pointer")
	}
	if n > maxHTTPRequestJSON {
		return refuse("request document over %d bytes", maxHTTPRequestJSON)
	}
	if st, _ := ctx.Value(callKey{}).(*callState); st != nil {
		if st.requests >= maxHTTPRequests {
			return refuse("more than %d requests in one call", maxHTTPRequests)
		}
		st.requests++
	}
	var req abi.HTTPRequest
	if err := strictUnmarshal(data, &req); err != nil {
		return refuse("bad request: %v", err)
	}
	if p.guard == nil || p.client == nil {
		return refuse("HTTP is not available to this plugin")
	}
	// The guest is stopped at its deadline only when it runs; a request it
	// waits for needs the deadline of its own.
	if d := k.Deadline(); !d.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
	}
	return p.guard.do(ctx, p.client, &req)
}
