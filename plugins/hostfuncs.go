package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	extism "github.com/extism/go-sdk"

	"github.com/mcphost/mcphost/pdk/abi"
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

func (p *Plugin) hostFunctions(withHTTP bool) []extism.HostFunction {
	i32, i64 := extism.ValueTypeI32, extism.ValueTypeI64
	fns := []extism.HostFunction{
		extism.NewHostFunctionWithStack(abi.FuncLog, p.hostLog, []extism.ValueType{i32, i64}, nil),
		extism.NewHostFunctionWithStack(abi.FuncSecret, p.hostSecret, []extism.ValueType{i64}, []extism.ValueType{i64}),
	}
	if withHTTP {
		fns = append(fns, extism.NewHostFunctionWithStack(abi.FuncHTTP, p.hostHTTP, []extism.ValueType{i64}, []extism.ValueType{i64}))
	}
	for i := range fns {
		fns[i].SetNamespace(abi.HostModule)
	}
	return fns
}

// readBlock reads up to limit bytes of the Extism block at off and frees the
// block. ok is false for an offset that is not a block; n is the block's
// full length.
func readBlock(cp *extism.CurrentPlugin, off uint64, limit int) (data []byte, n uint64, ok bool) {
	if off == 0 || off > math.MaxUint32 {
		return nil, 0, false
	}
	defer cp.Free(off)
	n, err := cp.Length(off)
	if err != nil || n == 0 {
		return nil, 0, n == 0 && err == nil
	}
	take := n
	if take > uint64(limit) {
		take = uint64(limit)
	}
	buf, ok := cp.Memory().Read(uint32(off), uint32(take))
	if !ok {
		return nil, n, false
	}
	return append([]byte(nil), buf...), n, true
}

// hostLog: (level i32, message i64) -> ().
func (p *Plugin) hostLog(ctx context.Context, cp *extism.CurrentPlugin, stack []uint64) {
	level := int32(uint32(stack[0]))
	data, n, ok := readBlock(cp, stack[1], maxGuestMessage)
	log := p.log
	if st, _ := ctx.Value(callKey{}).(*callState); st != nil {
		if st.logs >= maxLogLines {
			st.logsLost++
			return
		}
		st.logs++
		if st.hook != "" {
			log = log.With("hook", st.hook)
		}
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
func (p *Plugin) hostSecret(_ context.Context, cp *extism.CurrentPlugin, stack []uint64) {
	off := stack[0]
	stack[0] = 0
	data, n, ok := readBlock(cp, off, maxSecretName)
	if !ok || n > maxSecretName {
		p.log.Warn("mcphost_secret: bad secret name")
		return
	}
	name := string(data)
	v, granted := p.spec.Secrets[name]
	if !granted {
		p.log.Debug("mcphost_secret: not granted", "secret", guestText(name))
		return
	}
	val, err := cp.WriteBytes([]byte(v))
	if err != nil {
		p.log.Warn("mcphost_secret: cannot write into the guest's memory", "secret", name, "error", err)
		return
	}
	stack[0] = val
}

// hostHTTP: (request i64) -> (response i64), auth plugins only. Refusals and
// failures are responses with Error set.
func (p *Plugin) hostHTTP(ctx context.Context, cp *extism.CurrentPlugin, stack []uint64) {
	resp := p.doHTTP(ctx, cp, stack[0])
	if resp.Error != "" {
		p.log.Warn("mcphost_http: " + resp.Error)
	}
	data, err := json.Marshal(resp)
	if err != nil {
		data = []byte(`{"status":0,"error":"cannot encode the response"}`)
	}
	off, err := cp.WriteBytes(data)
	if err != nil {
		p.log.Warn("mcphost_http: cannot write the response into the guest's memory", "error", err)
		off = 0
	}
	stack[0] = off
}

func (p *Plugin) doHTTP(ctx context.Context, cp *extism.CurrentPlugin, off uint64) *abi.HTTPResponse {
	refuse := func(format string, args ...any) *abi.HTTPResponse {
		return &abi.HTTPResponse{Error: fmt.Sprintf(format, args...)}
	}
	data, n, ok := readBlock(cp, off, maxHTTPRequestJSON)
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
	return p.guard.do(ctx, p.client, &req)
}
