package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/naming"
	"github.com/mcphost/mcphost/internal/toolresult"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/glob"
)

// ErrDenied is wrapped by the error of a call that a policy stage denied
// (or that needed a confirmation that was declined or could not be asked).
var ErrDenied = errors.New("denied by policy")

// DeniedError says which stage denied a call and why.
type DeniedError struct {
	Stage  string
	Server string
	Tool   string
	Reason string
}

func (e *DeniedError) Error() string {
	msg := fmt.Sprintf("server %q: tool %q: denied by %s", e.Server, e.Tool, e.Stage)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrDenied) true.
func (e *DeniedError) Unwrap() error { return ErrDenied }

// stageTimeout bounds a stage call made outside a request (tool list
// filtering and naming happen on connect and on list_changed). Plugins also
// have their own, smaller, timeouts.
const stageTimeout = 10 * time.Second

// installedStage is a StageConfig with its hook implementations resolved.
type installedStage struct {
	cfg       StageConfig
	servers   []*glob.Pattern // cfg.Servers, compiled
	name      string
	policy    PolicyStage
	filter    FilterStage
	names     NameStage
	transform TransformStage
	auth      AuthStage
}

// pipeline holds the installed stages in chain order.
type pipeline struct {
	stages []*installedStage
}

func newPipeline(cfgs []StageConfig) (*pipeline, error) {
	p := &pipeline{}
	for i, c := range cfgs {
		if c.Stage == nil {
			return nil, fmt.Errorf("host: stage %d: no stage", i)
		}
		switch c.Mode {
		case "", ModeEnforce, ModeShadow:
		default:
			return nil, fmt.Errorf("host: stage %q: mode %q: use enforce or shadow", c.Stage.StageName(), c.Mode)
		}
		switch c.OnError {
		case "", OnErrorDeny, OnErrorAllow, OnErrorFallback:
		default:
			return nil, fmt.Errorf("host: stage %q: on_error %q: use deny, allow or fallback", c.Stage.StageName(), c.OnError)
		}
		var servers []*glob.Pattern
		for _, g := range c.Servers {
			p, err := glob.Compile(g)
			if err != nil {
				return nil, fmt.Errorf("host: stage %q: servers: %w", c.Stage.StageName(), err)
			}
			servers = append(servers, p)
		}
		is := &installedStage{cfg: c, servers: servers, name: c.Stage.StageName()}
		uses := func(h abi.Hook) bool { return len(c.Hooks) == 0 || slices.Contains(c.Hooks, h) }
		if s, ok := c.Stage.(PolicyStage); ok && uses(abi.HookPolicy) {
			is.policy = s
		}
		if s, ok := c.Stage.(FilterStage); ok && uses(abi.HookFilterTools) {
			is.filter = s
		}
		if s, ok := c.Stage.(NameStage); ok && uses(abi.HookMapNames) {
			is.names = s
		}
		if s, ok := c.Stage.(TransformStage); ok && uses(abi.HookTransformResult) {
			is.transform = s
		}
		if s, ok := c.Stage.(AuthStage); ok && uses(abi.HookAuth) {
			is.auth = s
		}
		for _, h := range c.Hooks {
			if !is.has(h) {
				return nil, fmt.Errorf("host: stage %q does not implement hook %q", is.name, h)
			}
		}
		p.stages = append(p.stages, is)
	}
	return p, nil
}

func (is *installedStage) has(h abi.Hook) bool {
	switch h {
	case abi.HookPolicy:
		return is.policy != nil
	case abi.HookFilterTools:
		return is.filter != nil
	case abi.HookMapNames:
		return is.names != nil
	case abi.HookTransformResult:
		return is.transform != nil
	case abi.HookAuth:
		return is.auth != nil
	}
	return false
}

func (is *installedStage) appliesTo(server string) bool {
	if len(is.servers) == 0 {
		return true
	}
	for _, p := range is.servers {
		if p.Match(server) {
			return true
		}
	}
	return false
}

func (is *installedStage) shadow() bool { return is.cfg.Mode == ModeShadow }

// onError returns the effective on_error for a hook.
func (is *installedStage) onError(h abi.Hook) string {
	if is.cfg.OnError != "" {
		return is.cfg.OnError
	}
	if h == abi.HookMapNames {
		return OnErrorFallback
	}
	return OnErrorDeny
}

// audit records one stage decision: a structured log line and the
// library's audit callback.
func (h *Host) audit(e AuditEvent) { h.auditCtx(context.Background(), e) }

// auditCtx is audit for a stage that ran for a call: ctx is the call's
// (WithStageObserver sees it, to put the stage in the call's trace).
func (h *Host) auditCtx(ctx context.Context, e AuditEvent) {
	if h.opts.stageObserver != nil {
		h.opts.stageObserver(ctx, e)
	}
	if h.opts.audit != nil {
		defer h.opts.audit(e)
	}
	if e.Err == "" && !h.log.IsDebug() {
		return // the line would be dropped: not worth building on every call
	}
	args := []any{"stage", e.Stage, "hook", e.Hook, "server", e.Server, "outcome", e.Outcome, "duration", e.Duration}
	if e.Tool != "" {
		args = append(args, "tool", e.Tool)
	}
	if e.Reason != "" {
		args = append(args, "reason", e.Reason)
	}
	if e.Shadow {
		args = append(args, "shadow", true)
	}
	if e.Err != "" && !e.notLoaded {
		args = append(args, "error", e.Err)
		h.log.Warn("stage decision", args...)
	} else {
		if e.Err != "" {
			args = append(args, "error", e.Err)
		}
		h.log.Debug("stage decision", args...)
	}
}

// maxPolicyRounds bounds how often the policy chain runs again after a
// stage rewrote the arguments.
const maxPolicyRounds = 4

// applyPolicy runs the policy stages for a call in chain order. The first
// deny wins; a rewrite replaces the arguments for the stages after it. When
// any stage rewrote the arguments, the whole chain runs again on them, until
// a round changes nothing: so every policy, built-in or plugin, decided on
// exactly the arguments that are sent, and a rewrite can never carry a call
// past a policy that would deny what it became. Confirmations are asked
// after the last round, showing those final arguments. It returns the
// arguments to send.
func (h *Host) applyPolicy(ctx context.Context, tool Tool, args map[string]any, caller *abi.Caller) (map[string]any, error) {
	for round := 1; ; round++ {
		next, confirms, rewrote, err := h.policyRound(ctx, tool, args, caller)
		if err != nil {
			return nil, err
		}
		if !rewrote {
			for _, c := range confirms {
				if err := h.askConfirm(ctx, tool, next, c); err != nil {
					return nil, err
				}
			}
			return next, nil
		}
		if round == maxPolicyRounds {
			return nil, &DeniedError{Stage: "policy chain", Server: tool.Server, Tool: tool.Tool,
				Reason: fmt.Sprintf("the policy stages still rewrote the arguments after %d rounds; no decision was made on final arguments", maxPolicyRounds)}
		}
		args = next
	}
}

// pendingConfirm is a "confirm" decision of the last round, asked once the
// arguments are final.
type pendingConfirm struct {
	stage  string
	reason string
	ev     AuditEvent
}

// policyRound runs every policy stage once.
func (h *Host) policyRound(ctx context.Context, tool Tool, args map[string]any, caller *abi.Caller) (map[string]any, []pendingConfirm, bool, error) {
	var confirms []pendingConfirm
	rewrote := false
	for _, is := range h.pipeline.stages {
		if is.policy == nil || !is.appliesTo(tool.Server) {
			continue
		}
		req := &abi.PolicyRequest{
			Server: tool.Server, Tool: tool.Tool, Name: tool.Name,
			Arguments: args, Annotations: toABIAnnotations(tool.Annotations), Caller: caller, Pin: tool.Pin,
		}
		start := time.Now()
		dec, err := is.policy.Policy(ctx, req)
		ev := AuditEvent{Stage: is.name, Hook: abi.HookPolicy, Server: tool.Server, Tool: tool.Tool, Shadow: is.shadow(), Duration: time.Since(start)}
		if err == nil {
			err = validDecision(dec)
		}
		if err != nil {
			ev.Err, ev.notLoaded = err.Error(), isNotLoaded(err)
			if is.shadow() || is.onError(abi.HookPolicy) == OnErrorAllow {
				ev.Outcome = "error-ignored"
				h.auditCtx(ctx, ev)
				continue
			}
			ev.Outcome = string(abi.Deny)
			ev.Reason = "the policy stage failed (on_error: deny)"
			h.auditCtx(ctx, ev)
			return nil, nil, false, &DeniedError{Stage: is.name, Server: tool.Server, Tool: tool.Tool, Reason: "the policy failed: " + err.Error()}
		}
		ev.Outcome, ev.Reason = string(dec.Decision), dec.Reason
		if is.shadow() {
			ev.Outcome = "would-" + string(dec.Decision)
			h.auditCtx(ctx, ev)
			continue
		}
		if dec.Decision == abi.Deny {
			h.auditCtx(ctx, ev)
			return nil, nil, false, &DeniedError{Stage: is.name, Server: tool.Server, Tool: tool.Tool, Reason: dec.Reason}
		}
		// Only a stage that answers with arguments costs a comparison.
		if dec.Arguments != nil && !sameArguments(dec.Arguments, args) {
			args, rewrote = dec.Arguments, true
			ev.Outcome += "+rewrite"
		}
		if dec.Decision == abi.Confirm {
			confirms = append(confirms, pendingConfirm{stage: is.name, reason: dec.Reason, ev: ev})
			continue // audited once asked
		}
		h.auditCtx(ctx, ev)
	}
	return args, confirms, rewrote, nil
}

// askConfirm asks the Confirmer about the final arguments.
func (h *Host) askConfirm(ctx context.Context, tool Tool, args map[string]any, c pendingConfirm) error {
	ev := c.ev
	ok, why := h.confirm(ctx, ConfirmRequest{Stage: c.stage, Server: tool.Server, Tool: tool.Tool, Name: tool.Name, Arguments: args, Reason: c.reason})
	if !ok {
		ev.Outcome = "declined"
		if why != "" {
			ev.Reason = why
		}
		h.auditCtx(ctx, ev)
		return &DeniedError{Stage: c.stage, Server: tool.Server, Tool: tool.Tool, Reason: joinReason(c.reason, why)}
	}
	ev.Outcome = strings.Replace(ev.Outcome, string(abi.Confirm), "confirmed", 1)
	h.auditCtx(ctx, ev)
	return nil
}

// sameArguments compares arguments as JSON (a stage's answer decodes
// numbers as float64 where the caller may have passed ints).
func sameArguments(a, b map[string]any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// confirm asks the Confirmer; without one, or when it fails, the answer is no.
func (h *Host) confirm(ctx context.Context, req ConfirmRequest) (bool, string) {
	if h.opts.confirmer == nil {
		return false, "confirmation required, but no one can be asked (no confirmer)"
	}
	ok, err := h.opts.confirmer(ctx, req)
	switch {
	case errors.Is(err, ErrCannotAsk):
		return false, "confirmation required, but " + err.Error()
	case err != nil:
		return false, "confirmation failed: " + err.Error()
	}
	if !ok {
		return false, "declined"
	}
	return true, ""
}

func joinReason(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " (" + b + ")"
}

func validDecision(d *abi.PolicyDecision) error {
	if d == nil {
		return errors.New("no decision")
	}
	switch d.Decision {
	case abi.Allow, abi.Deny, abi.Confirm:
		return nil
	}
	return fmt.Errorf("decision %q is not allow, deny or confirm", d.Decision)
}

// applyTransforms runs the transform stages over a result, in chain order.
// The result is encoded once; each stage's output is checked by decoding it
// (so a bad answer is blamed on its stage) and handed on as it came.
func (h *Host) applyTransforms(ctx context.Context, tool Tool, args map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	// The result is encoded once and each stage's output handed on as it
	// came; only the last output is decoded (a Wasm stage's output was
	// already checked by its adapter), and only when a stage changed
	// something: a chain that passed the result through hands back the
	// result itself. A decoding failure is blamed on the stage that
	// returned the output last.
	if res == nil {
		return nil, nil
	}
	var raw []byte
	last := ""
	changed := false
	for _, is := range h.pipeline.stages {
		if is.transform == nil || !is.appliesTo(tool.Server) {
			continue
		}
		if raw == nil {
			// go-sdk's own encoder, called directly: through json.Marshal
			// its output would be scanned and compacted a second time.
			var err error
			if raw, err = res.MarshalJSON(); err != nil {
				return nil, fmt.Errorf("server %q: tool %q: encoding the result: %w", tool.Server, tool.Tool, err)
			}
		}
		start := time.Now()
		outRaw, err := transformOnce(ctx, is, tool, args, raw)
		ev := AuditEvent{Stage: is.name, Hook: abi.HookTransformResult, Server: tool.Server, Tool: tool.Tool, Shadow: is.shadow(), Duration: time.Since(start)}
		if err != nil {
			ev.Err, ev.notLoaded = err.Error(), isNotLoaded(err)
			if is.shadow() || is.onError(abi.HookTransformResult) == OnErrorAllow {
				ev.Outcome = "error-ignored"
				h.auditCtx(ctx, ev)
				continue
			}
			ev.Outcome = "withheld"
			h.auditCtx(ctx, ev)
			return nil, fmt.Errorf("server %q: tool %q: result withheld: transform %s failed (on_error: deny): %w", tool.Server, tool.Tool, is.name, err)
		}
		ev.Outcome = "transformed"
		if is.shadow() {
			ev.Outcome = "would-transform"
			h.auditCtx(ctx, ev)
			continue
		}
		h.auditCtx(ctx, ev)
		changed = changed || !bytes.Equal(outRaw, raw)
		raw, last = outRaw, is.name
	}
	if !changed {
		return res, nil
	}
	// Each transform's answer was checked to be a CallToolResult in valid
	// JSON. toolresult decodes it as go-sdk does, without go-sdk's 32 KiB
	// decoder; what it leaves, go-sdk decodes, without encoding/json's
	// second pass over what may be megabytes.
	if out, ok := toolresult.Decode(raw); ok {
		return out, nil
	}
	var out mcp.CallToolResult
	if err := out.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("server %q: tool %q: result withheld: transform %s returned something that is not a CallToolResult: %w", tool.Server, tool.Tool, last, err)
	}
	return &out, nil
}

func transformOnce(ctx context.Context, is *installedStage, tool Tool, args map[string]any, raw []byte) ([]byte, error) {
	resp, err := is.transform.TransformResult(ctx, &abi.TransformResultRequest{
		Server: tool.Server, Tool: tool.Tool, Name: tool.Name, Arguments: args, Result: raw,
	})
	if err != nil {
		return nil, err
	}
	if resp == nil || len(resp.Result) == 0 {
		return nil, errors.New("no result returned")
	}
	return resp.Result, nil
}

// mapNames gives every key its public name. The built-in mapper names them
// all; then each enforcing name stage renames the keys of the servers its
// `servers` globs select (later stages over earlier ones). A stage's answer
// is checked: one valid name per key, unique across every tool. When a stage
// fails or answers something invalid, its on_error decides: fallback (the
// default) and allow keep the names those tools had before the stage; deny
// hides those tools, for deployments whose other rules depend on the names.
// Shadow stages are asked too, and only audited. Keys missing from the
// returned map are hidden.
func (h *Host) mapNames(keys []naming.Key, titles map[naming.Key]string) (map[naming.Key]string, error) {
	builtin, err := h.mapper.Map(keys)
	if err != nil {
		return nil, err
	}
	names := builtin
	for _, is := range h.pipeline.stages {
		if is.names == nil {
			continue
		}
		var mine []naming.Key
		for _, k := range keys {
			if is.appliesTo(k.Server) {
				mine = append(mine, k)
			}
		}
		if len(mine) == 0 {
			continue
		}
		req := &abi.MapNamesRequest{Constraints: abi.NameConstraints{MaxLength: h.mapper.MaxLen(), Pattern: naming.Pattern(h.mapper.MaxLen())}}
		for _, k := range mine {
			req.Tools = append(req.Tools, abi.NameKey{Server: k.Server, Tool: k.Tool, Title: titles[k]})
		}
		ctx, cancel := context.WithTimeout(context.Background(), stageTimeout)
		start := time.Now()
		resp, err := is.names.MapNames(ctx, req)
		cancel()
		ev := AuditEvent{Stage: is.name, Hook: abi.HookMapNames, Shadow: is.shadow(), Duration: time.Since(start)}
		var renamed map[naming.Key]string
		if err == nil {
			renamed, err = checkNames(mine, resp, h.mapper.MaxLen(), names)
		}
		if err != nil {
			ev.Err, ev.notLoaded = err.Error(), isNotLoaded(err)
			if !is.shadow() && is.onError(abi.HookMapNames) == OnErrorDeny {
				ev.Outcome = fmt.Sprintf("hid %d", len(mine))
				ev.Reason = "the name stage failed (on_error: deny): the tools it names are hidden"
				h.audit(ev)
				names = maps.Clone(names)
				for _, k := range mine {
					delete(names, k)
				}
				continue
			}
			ev.Outcome = "fallback"
			h.audit(ev)
			continue
		}
		ev.Outcome = fmt.Sprintf("named %d", len(renamed))
		if is.shadow() {
			ev.Outcome = "would-" + ev.Outcome
			h.audit(ev)
			continue
		}
		h.audit(ev)
		names = renamed
	}
	return names, nil
}

// checkNames validates a name stage's answer for keys: one valid name per
// key, unique across every tool (the others keep their names in current).
// It returns current with the keys renamed.
func checkNames(keys []naming.Key, resp *abi.MapNamesResponse, maxLen int, current map[naming.Key]string) (map[naming.Key]string, error) {
	if resp == nil || len(resp.Names) != len(keys) {
		got := 0
		if resp != nil {
			got = len(resp.Names)
		}
		return nil, fmt.Errorf("returned %d names for %d tools", got, len(keys))
	}
	out := maps.Clone(current)
	for i, k := range keys {
		n := resp.Names[i]
		if !naming.Valid(n, maxLen) {
			return nil, fmt.Errorf("name %q for %s:%s does not match %s", n, k.Server, k.Tool, naming.Pattern(maxLen))
		}
		out[k] = n
	}
	seen := make(map[string]naming.Key, len(out))
	for k, n := range out {
		if other, dup := seen[n]; dup && other != k {
			a, b := other, k
			if compareStrings(a.Server+"\x00"+a.Tool, b.Server+"\x00"+b.Tool) > 0 {
				a, b = b, a
			}
			return nil, fmt.Errorf("name %q is given to both %s:%s and %s:%s", n, a.Server, a.Tool, b.Server, b.Tool)
		}
		seen[n] = k
	}
	return out, nil
}

func toABIAnnotations(a *mcp.ToolAnnotations) *abi.ToolAnnotations {
	if a == nil {
		return nil
	}
	return &abi.ToolAnnotations{
		Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
		IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint,
	}
}
