package host

import (
	"slices"
	"sync"

	"github.com/mcphost/mcphost/host/naming"
	"github.com/mcphost/mcphost/pdk/abi"
)

// registry maps public tool names to (server, tool) and back. It is rebuilt
// as a whole whenever a server's tool list changes, so a public name is a
// pure function of the set of tools present: the same tools always get the
// same names.
type registry struct {
	rebuildMu sync.Mutex // serialises rebuilds: an older result must not overwrite a newer one
	mu        sync.RWMutex
	tools     []Tool               // sorted by public name, denied ones included
	offered   []Tool               // tools without the denied ones
	byName    map[string]*callable // public name -> tool
	byDisplay map[string]*callable // "server:tool" -> tool
}

// callable is a tool with what every call of it needs, worked out once
// when the registry is built rather than on each call.
type callable struct {
	Tool
	// paramHeaders are the parameters mirrored into HTTP headers
	// (toolParamHeaders of the input schema).
	paramHeaders []paramHeader
	// confirmPin says why pinning asks a confirmation for each call.
	confirmPin string
}

// rebuildRegistry recomputes every public name from the tools of the
// servers that are ready or reconnecting.
func (h *Host) rebuildRegistry() {
	h.registry.rebuildMu.Lock()
	defer h.registry.rebuildMu.Unlock()
	type entry struct {
		key        naming.Key
		tool       Tool
		confirmPin string
	}
	var entries []entry
	for _, s := range h.list() {
		s.mu.Lock()
		// A reconnecting server keeps its tools: calls wait for it.
		if s.listed {
			for _, t := range s.tools {
				tool := Tool{
					Server:       s.cfg.ID,
					Tool:         t.Name,
					Display:      s.cfg.ID + ":" + t.Name,
					Title:        t.Title,
					Description:  t.Description,
					InputSchema:  t.InputSchema,
					OutputSchema: t.OutputSchema,
					Annotations:  t.Annotations,
				}
				if tool.Title == "" && t.Annotations != nil {
					tool.Title = t.Annotations.Title
				}
				var confirmPin string
				tool.Pin, tool.Hidden, confirmPin = s.pinsOf(t.Name)
				entries = append(entries, entry{naming.Key{Server: s.cfg.ID, Tool: t.Name}, tool, confirmPin})
			}
		}
		s.mu.Unlock()
	}
	keys := make([]naming.Key, 0, len(entries))
	titles := make(map[naming.Key]string, len(entries))
	for _, e := range entries {
		if _, dup := titles[e.key]; !dup {
			keys = append(keys, e.key)
		}
		titles[e.key] = e.tool.Title
	}
	names, err := h.mapNames(keys, titles)
	if err != nil {
		// The mapper was validated in New; an error here is a bug, but the
		// host must keep serving: keep the previous registry.
		h.log.Error("name mapping failed; keeping previous tool names", "error", err)
		return
	}
	tools := make([]Tool, 0, len(entries))
	confirmPin := map[string]string{}
	for _, e := range entries {
		name, ok := names[e.key]
		if !ok {
			continue // hidden by a failing name stage (on_error: deny)
		}
		e.tool.Name = name
		e.tool.Denied = h.alwaysDenied(e.tool)
		tools = append(tools, e.tool)
		if e.confirmPin != "" {
			confirmPin[e.tool.Display] = e.confirmPin
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int { return compareStrings(a.Name, b.Name) })
	tools = slices.CompactFunc(tools, func(a, b Tool) bool { return a.Name == b.Name })
	byName := make(map[string]*callable, len(tools))
	byDisplay := make(map[string]*callable, len(tools))
	for _, t := range tools {
		c := &callable{Tool: t, paramHeaders: toolParamHeaders(t.InputSchema), confirmPin: confirmPin[t.Display]}
		byName[t.Name] = c
		byDisplay[t.Display] = c
	}
	// Tools pinning hides keep their names (names do not move when a tool
	// is hidden or approved) and stay resolvable, so that a call says why
	// it is refused; they are listed nowhere.
	tools = slices.DeleteFunc(tools, func(t Tool) bool { return t.Hidden != "" })
	h.registry.mu.Lock()
	offered := slices.DeleteFunc(slices.Clone(tools), func(t Tool) bool { return t.Denied != "" })
	h.registry.tools, h.registry.offered, h.registry.byName, h.registry.byDisplay = tools, offered, byName, byDisplay
	h.registry.mu.Unlock()
}

// Tools lists the tools of every ready server that may be offered to a
// model, sorted by public name: the tools the policy always denies (see
// Tool.Denied) are left out, so a model is never handed a tool whose every
// call would be refused. Hand this list to a model.
func (h *Host) Tools() []Tool {
	h.registry.mu.RLock()
	defer h.registry.mu.RUnlock()
	return slices.Clone(h.registry.offered)
}

// AllTools lists every tool of every ready server, sorted by public name,
// the ones the policy always denies included and marked (Tool.Denied): for
// people who want to see what is configured, not for models.
func (h *Host) AllTools() []Tool {
	h.registry.mu.RLock()
	defer h.registry.mu.RUnlock()
	return slices.Clone(h.registry.tools)
}

// alwaysDenied asks the enforcing policy stages that decide on names alone
// (abi.ToolDenier) whether they refuse every call of t, and returns the
// first one's reason ("" when none does).
func (h *Host) alwaysDenied(t Tool) string {
	for _, is := range h.pipeline.stages {
		if is.policy == nil || is.shadow() || !is.appliesTo(t.Server) {
			continue
		}
		d, ok := is.policy.(abi.ToolDenier)
		if !ok {
			continue
		}
		req := &abi.PolicyRequest{Server: t.Server, Tool: t.Tool, Name: t.Name, Annotations: toABIAnnotations(t.Annotations)}
		if reason, denied := d.DeniesTool(req); denied {
			if reason == "" {
				reason = "denied"
			}
			return is.name + ": " + reason
		}
	}
	return ""
}

// Resolve returns the tool behind a public name. It also accepts the display
// form "server:tool".
func (h *Host) Resolve(name string) (Tool, bool) {
	if c := h.resolve(name); c != nil {
		return c.Tool, true
	}
	return Tool{}, false
}

// resolve is Resolve for a call; nil when the name resolves to no tool.
// The answer is shared: read it, never change it.
func (h *Host) resolve(name string) *callable {
	h.registry.mu.RLock()
	defer h.registry.mu.RUnlock()
	if c, ok := h.registry.byName[name]; ok {
		return c
	}
	return h.registry.byDisplay[name]
}
