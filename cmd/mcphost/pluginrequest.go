package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcphost/mcphost/host/naming"
	"github.com/mcphost/mcphost/internal/argcheck"
	"github.com/mcphost/mcphost/pdk/abi"
)

// What "plugin test --tool" and "plugin bench --tool" send: a policy (or
// transform_result) request built from flags, so that nobody writes the
// ABI's JSON by hand to try a policy.

// requestFlags are the flags that build a request.
type requestFlags struct {
	tool, args, server, name string
	annotations, result      string
	caller, callerKind       string
	scopes                   []string
	readOnly, destructive    bool
	idempotent, openWorld    bool
	flags                    *pflag.FlagSet // to tell a flag set to false from one left out
}

// defaultTestServer is the server id of a built request without --server.
const defaultTestServer = "test"

// callerKinds are the kinds of caller the host sends (abi.Caller.Kind).
var callerKinds = []string{"cli", "library", "gateway"}

func (r *requestFlags) register(fl *pflag.FlagSet) {
	r.flags = fl
	fl.StringVar(&r.tool, "tool", "", "build the request for a call of this tool (the name the server gives it), instead of --input")
	fl.StringVar(&r.args, "args", "", "with --tool: the call's arguments, a JSON object, @FILE or - for standard input")
	fl.StringVar(&r.server, "server", defaultTestServer, "with --tool: the id of the tool's server")
	fl.StringVar(&r.name, "name", "", "with --tool: the tool's public name (default mcp__SERVER__TOOL)")
	fl.StringVar(&r.annotations, "annotations", "", `with --tool: the tool's annotations, JSON like '{"destructiveHint":true}' (default: none, which MCP reads as destructive and open-world)`)
	fl.BoolVar(&r.readOnly, "read-only", false, "with --tool: set readOnlyHint")
	fl.BoolVar(&r.destructive, "destructive", false, "with --tool: set destructiveHint (--destructive=false for a tool that says it is not)")
	fl.BoolVar(&r.idempotent, "idempotent", false, "with --tool: set idempotentHint")
	fl.BoolVar(&r.openWorld, "open-world", false, "with --tool: set openWorldHint (--open-world=false for a tool that says it is not)")
	fl.StringVar(&r.caller, "caller", "", "with --tool: the caller's id (for a gateway caller, the authenticated subject)")
	fl.StringVar(&r.callerKind, "caller-kind", "gateway", "with --tool: the caller's kind: "+strings.Join(callerKinds, ", ")+" (used with --caller or --scope)")
	fl.StringArrayVar(&r.scopes, "scope", nil, "with --tool: an OAuth scope of the caller's token (repeatable)")
	fl.StringVar(&r.result, "result", "", "with --tool: the tool's CallToolResult as JSON (or @FILE): builds a transform_result request instead of a policy one")
}

// given lists the request flags set on the command line other than --tool.
func (r *requestFlags) given() []string {
	var out []string
	for _, name := range []string{"args", "server", "name", "annotations", "read-only", "destructive", "idempotent", "open-world", "caller", "caller-kind", "scope", "result"} {
		if r.flags.Changed(name) {
			out = append(out, "--"+name)
		}
	}
	return out
}

// requestHook is the hook a built request is for: transform_result with
// --result, policy otherwise; hook is --hook, "" when not given.
func (r *requestFlags) requestHook(hook abi.Hook) (abi.Hook, error) {
	want := abi.HookPolicy
	if r.flags.Changed("result") {
		want = abi.HookTransformResult
	}
	if hook != "" && hook != want {
		if hook == abi.HookTransformResult {
			return "", usageError("--hook transform_result with --tool: give the tool's result with --result '{\"content\":[...]}'")
		}
		if want == abi.HookTransformResult {
			return "", usageError("--result builds a transform_result request, not a %s one: use --hook transform_result, or drop --result", hook)
		}
		return "", usageError("--tool builds a policy or transform_result request, not a %s one: give --input instead (\"mcphost plugin test --sample %s\" prints one to start from)", hook, hook)
	}
	return want, nil
}

// build reads the flags into the request of hook (policy or
// transform_result), as JSON. Every problem is a usage error that names
// its flag.
func (r *requestFlags) build(ctx context.Context, a *app, hook abi.Hook) ([]byte, error) {
	if strings.TrimSpace(r.tool) == "" {
		return nil, usageError("--tool: give the tool's name (the name its server gives it)")
	}
	if strings.TrimSpace(r.server) == "" {
		return nil, usageError("--server: give the id of the tool's server")
	}
	args, err := argcheck.ReadArgs(ctx, r.args, a.stdin)
	if err != nil {
		return nil, usageError("%v", err)
	}
	name := r.name
	if name == "" {
		name = "mcp__" + naming.Sanitize(r.server) + "__" + naming.Sanitize(r.tool)
	}
	if hook == abi.HookTransformResult {
		result, err := a.readJSONFlag("--result", r.result, "a CallToolResult, a JSON object like '{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}'")
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(result, []byte("{")) {
			return nil, usageError("--result: must be a JSON object (a CallToolResult) like '{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}'")
		}
		return json.Marshal(&abi.TransformResultRequest{Server: r.server, Tool: r.tool, Name: name, Arguments: args, Result: result})
	}
	annotations, err := r.toolAnnotations()
	if err != nil {
		return nil, err
	}
	caller, err := r.callerOf()
	if err != nil {
		return nil, err
	}
	return json.Marshal(&abi.PolicyRequest{Server: r.server, Tool: r.tool, Name: name, Arguments: args, Annotations: annotations, Caller: caller})
}

// toolAnnotations are --annotations with the hint flags on top; nil when
// none is given (the MCP defaults then apply).
func (r *requestFlags) toolAnnotations() (*abi.ToolAnnotations, error) {
	var an *abi.ToolAnnotations
	if r.annotations != "" {
		an = &abi.ToolAnnotations{}
		dec := json.NewDecoder(strings.NewReader(r.annotations))
		dec.DisallowUnknownFields() // "destructive" for "destructiveHint" must not pass
		if err := dec.Decode(an); err != nil {
			return nil, usageError("--annotations: %s: write a JSON object of MCP tool annotations like '{\"readOnlyHint\":true}' (title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)", strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	set := func(flag string, apply func(a *abi.ToolAnnotations)) {
		if !r.flags.Changed(flag) {
			return
		}
		if an == nil {
			an = &abi.ToolAnnotations{}
		}
		apply(an)
	}
	set("read-only", func(a *abi.ToolAnnotations) { a.ReadOnlyHint = r.readOnly })
	set("destructive", func(a *abi.ToolAnnotations) { v := r.destructive; a.DestructiveHint = &v })
	set("idempotent", func(a *abi.ToolAnnotations) { a.IdempotentHint = r.idempotent })
	set("open-world", func(a *abi.ToolAnnotations) { v := r.openWorld; a.OpenWorldHint = &v })
	return an, nil
}

// callerOf is the caller that --caller, --caller-kind and --scope
// describe; nil when none of them is given (a call without a caller).
func (r *requestFlags) callerOf() (*abi.Caller, error) {
	if !r.flags.Changed("caller") && !r.flags.Changed("caller-kind") && !r.flags.Changed("scope") {
		return nil, nil
	}
	known := false
	for _, k := range callerKinds {
		known = known || k == r.callerKind
	}
	if !known {
		return nil, usageError("--caller-kind %q: give one of %s", r.callerKind, strings.Join(callerKinds, ", "))
	}
	return &abi.Caller{Kind: r.callerKind, ID: r.caller, Scopes: r.scopes}, nil
}

// printSample prints the sample request of a hook, indented.
func (a *app) printSample(hookName string) error {
	hook, err := abi.ParseHook(hookName)
	if err != nil {
		return usageError("--sample %q: not a hook of ABI v%d: use one of %s", hookName, abi.Version, hookNames())
	}
	b, err := json.MarshalIndent(abi.SampleRequest(hook), "", "  ")
	if err != nil {
		return fmt.Errorf("plugin test: the sample %s request: %w", hook, err)
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}

func hookNames() string {
	names := make([]string, len(abi.Hooks))
	for i, h := range abi.Hooks {
		names[i] = string(h)
	}
	return strings.Join(names, ", ")
}
