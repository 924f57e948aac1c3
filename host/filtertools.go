package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/pdk/abi"
)

// filterTools runs the filter stages over one server's tool list: the
// stages' answers intersect. When a failing stage hides them all, hidden
// says so, for the server's warnings: an empty list says nothing. pins are
// the tools' pin states (nil without pinning).
func (h *Host) filterTools(server string, tools []*mcp.Tool, pins map[string]string) (kept []*mcp.Tool, hidden string) {
	for _, is := range h.pipeline.stages {
		if is.filter == nil || !is.appliesTo(server) || len(tools) == 0 {
			continue
		}
		req := &abi.FilterToolsRequest{Server: server}
		for _, t := range tools {
			info := abi.ToolInfo{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: toABIAnnotations(t.Annotations), Pin: pins[t.Name]}
			if t.InputSchema != nil {
				if b, err := json.Marshal(t.InputSchema); err == nil {
					info.InputSchema = b
				}
			}
			req.Tools = append(req.Tools, info)
		}
		ctx, cancel := context.WithTimeout(context.Background(), stageTimeout)
		start := time.Now()
		resp, err := is.filter.FilterTools(ctx, req)
		cancel()
		ev := AuditEvent{Stage: is.name, Hook: abi.HookFilterTools, Server: server, Shadow: is.shadow(), Duration: time.Since(start)}
		if err == nil && resp == nil {
			err = errors.New("no answer")
		}
		if err != nil {
			ev.Err, ev.notLoaded = err.Error(), isNotLoaded(err)
			if is.shadow() || is.onError(abi.HookFilterTools) == OnErrorAllow {
				ev.Outcome = "error-ignored"
				h.audit(ev)
				continue
			}
			ev.Outcome = "kept 0/" + fmt.Sprint(len(tools))
			ev.Reason = "the filter failed (on_error: deny): the server's tools are hidden"
			h.audit(ev)
			return nil, fmt.Sprintf("all %d tools hidden: the filter_tools stage %s failed (on_error: deny): %v", len(tools), is.name, err)
		}
		keep := make(map[string]bool, len(resp.Tools))
		for _, n := range resp.Tools {
			keep[n] = true
		}
		kept := slices.DeleteFunc(slices.Clone(tools), func(t *mcp.Tool) bool { return !keep[t.Name] })
		ev.Outcome = fmt.Sprintf("kept %d/%d", len(kept), len(tools))
		if is.shadow() {
			ev.Outcome = "would-" + ev.Outcome
			h.audit(ev)
			continue
		}
		h.audit(ev)
		tools = kept
	}
	return tools, ""
}
