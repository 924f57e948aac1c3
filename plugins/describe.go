package plugins

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero/sys"

	"github.com/mcphost/mcphost/pdk/abi"
)

// A plugin's description: new instances describe it, and what they say is checked.

// checkDescription validates what mcphost_describe returned and fixes the
// plugin's effective hooks.
func (p *Plugin) checkDescription(d *abi.Description, exported map[abi.Hook]bool) *Error {
	if d.ABI != abi.Version {
		return p.loadError("ABI version %d is not supported (mcphost speaks ABI v%d; rebuild the plugin with a matching PDK)", d.ABI, abi.Version)
	}
	if strings.TrimSpace(d.Name) == "" {
		return p.loadError("%s: the description has no name", abi.ExportDescribe)
	}
	described := map[abi.Hook]bool{}
	for _, h := range d.Hooks {
		if !h.Valid() {
			return p.loadError("%s lists hook %q, which ABI v%d does not have", abi.ExportDescribe, h, abi.Version)
		}
		if described[h] {
			return p.loadError("%s lists hook %s twice", abi.ExportDescribe, h)
		}
		if !exported[h] {
			return p.loadError("describes hook %s but does not export %s", h, h.Export())
		}
		described[h] = true
	}
	hooks := p.spec.Hooks
	for _, h := range hooks {
		if !described[h] {
			return p.loadError("the configuration lists hook %s, but the plugin describes only %s", h, HookList(d.Hooks))
		}
	}
	if len(hooks) == 0 {
		hooks = d.Hooks
	}
	if len(hooks) == 0 {
		return p.loadError("%s lists no hooks", abi.ExportDescribe)
	}
	hooks = sortHooks(hooks)
	if p.spec.OnError == OnErrorFallback && (len(hooks) != 1 || hooks[0] != abi.HookMapNames) {
		return p.loadError("on_error fallback is only for map_names, but the plugin's hooks are %s", HookList(hooks))
	}
	auth := slices.Contains(hooks, abi.HookAuth)
	if len(p.spec.AllowedHosts) > 0 && !auth {
		return p.loadError("allowed_hosts is set but the plugin has no auth hook (its hooks are %s)", HookList(hooks))
	}
	if !auth {
		for _, imp := range p.info.Imports {
			if imp.Module == abi.HostModule && imp.Name == abi.FuncHTTP {
				return p.loadError("imports %s, which only auth plugins are given (its hooks are %s)", abi.FuncHTTP, HookList(hooks))
			}
		}
	}
	p.desc = d
	p.hooks = hooks
	p.hookSet = map[abi.Hook]bool{}
	for _, h := range hooks {
		p.hookSet[h] = true
	}
	return nil
}

// sortHooks orders hooks as abi.Hooks (pipeline order).
func sortHooks(hooks []abi.Hook) []abi.Hook {
	out := append([]abi.Hook(nil), hooks...)
	rank := map[abi.Hook]int{}
	for i, h := range abi.Hooks {
		rank[h] = i
	}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i]] < rank[out[j]] })
	return out
}

// HookList writes hooks for a message: "policy, auth", or "none".
func HookList(hooks []abi.Hook) string {
	if len(hooks) == 0 {
		return "none"
	}
	s := make([]string, len(hooks))
	for i, h := range hooks {
		s[i] = string(h)
	}
	return strings.Join(s, ", ")
}

// newInstance makes an instance and calls mcphost_describe on it: that runs
// the guest's initialiser (the kernel does it before the first call) under the
// init timeout rather than the first hook call's timeout_ms, and checks
// that the instance works before any hook uses it.
func (p *Plugin) newInstance(ctx context.Context) (*instance, error) {
	t := &tracker{limit: uint64(p.limits.MemoryMB) * mib}
	ictx, cancel := context.WithTimeout(t.with(ctx), p.initTimeout)
	defer cancel()
	k, err := p.compiled.Instantiate(ictx)
	if err != nil {
		e := &Error{Plugin: p.name, Kind: KindTrap, Err: err}
		var exit *sys.ExitError
		switch {
		case ctx.Err() != nil:
			e.Kind, e.Msg, e.Err = KindCanceled, "canceled: "+ctx.Err().Error(), ctx.Err()
		case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
			e.Kind, e.Msg = KindTimeout, fmt.Sprintf("instantiating took longer than %s (a start function that does not return?)", p.initTimeout)
		case errors.As(err, &exit):
			e.Kind, e.Msg = KindExit, fmt.Sprintf("instantiating: exited with code %d", exit.ExitCode())
		default:
			e.Msg = "instantiating: " + strings.TrimPrefix(firstLine(err.Error()), "instantiating module: ")
		}
		return nil, e
	}
	p.created.Add(1)
	inst := &instance{k: k, t: t}
	if over, size := t.initialOverCap(); over {
		inst.close()
		p.discarded.Add(1)
		return nil, &Error{Plugin: p.name, Kind: KindMemory, Msg: fmt.Sprintf("exceeded memory_mb %d: the module declares %.1f MiB of initial memory", p.limits.MemoryMB, float64(size)/mib)}
	}
	out, healthy, cerr := p.run(ctx, inst, "", abi.ExportDescribe, nil, p.initTimeout,
		fmt.Sprintf("%s (with the guest's initialiser) took longer than %s", abi.ExportDescribe, p.initTimeout))
	if cerr == nil && int64(len(out)) > p.limits.MaxOutputBytes {
		cerr = &Error{Plugin: p.name, Kind: KindOutput, Msg: fmt.Sprintf("%s: output of %d bytes exceeds max_output_bytes %d", abi.ExportDescribe, len(out), p.limits.MaxOutputBytes)}
	}
	if cerr == nil {
		var d abi.Description
		if err := strictUnmarshal(out, &d); err != nil {
			cerr = &Error{Plugin: p.name, Kind: KindOutput, Msg: fmt.Sprintf("%s: %v", abi.ExportDescribe, err)}
		} else {
			inst.desc = &d
		}
	}
	if cerr != nil {
		if !healthy {
			p.discarded.Add(1)
		}
		inst.close()
		if !strings.HasPrefix(cerr.Msg, abi.ExportDescribe) && cerr.Kind != KindTimeout {
			cerr.Msg = abi.ExportDescribe + ": " + cerr.Msg
		}
		return nil, cerr
	}
	return inst, nil
}
