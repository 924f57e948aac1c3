package host

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/mcphost/mcphost/pdk/glob"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/jsonscan"
)

// A server's lists of tools, resources and prompts: fetched, bounded and filtered.

// refreshAll fetches every list the server's capabilities announce.
func (s *server) refreshAll(ctx context.Context, sess *mcp.ClientSession) error {
	if err := s.refreshTools(ctx, sess); err != nil {
		return err
	}
	// Resources and prompts are secondary: a server that fails to list them
	// still serves its tools.
	if err := s.refreshResources(ctx, sess); err != nil {
		s.log.Warn("listing resources failed", "error", err)
	}
	if err := s.refreshPrompts(ctx, sess); err != nil {
		s.log.Warn("listing prompts failed", "error", err)
	}
	return nil
}

func (s *server) caps(sess *mcp.ClientSession) *mcp.ServerCapabilities {
	if ir := sess.InitializeResult(); ir != nil && ir.Capabilities != nil {
		return ir.Capabilities
	}
	return &mcp.ServerCapabilities{}
}

func (s *server) refreshTools(ctx context.Context, sess *mcp.ClientSession) error {
	if s.caps(sess).Tools == nil {
		s.mu.Lock()
		s.tools = nil
		s.mu.Unlock()
		return nil
	}
	var (
		tools    []*mcp.Tool
		warnings []string
	)
	listed, warning, err := listAll(s, "tools/list", sess.Tools(ctx, nil))
	if err != nil {
		return err
	}
	if warning != "" {
		warnings = append(warnings, warning)
	}
	seen := make(map[string]bool, len(listed))
	for _, t := range listed {
		if seen[t.Name] {
			// One name, one tool: pinning, the filters and the registry
			// must all see the same definition (a second one could carry
			// what the first is judged innocent for).
			w := fmt.Sprintf("tool %q is listed twice: the second definition is left out", t.Name)
			s.log.Warn(w)
			warnings = append(warnings, w)
			continue
		}
		seen[t.Name] = true
		if !s.toolAllowed(t.Name) {
			continue
		}
		if problem := schemaProblem(t); problem != "" {
			w := fmt.Sprintf("tool %q left out: %s", t.Name, problem)
			s.log.Warn(w)
			warnings = append(warnings, w)
			continue
		}
		tools = append(tools, t)
	}
	var pins map[string]string
	if s.h.pins != nil {
		// Before the filter stages and the names: pinning sees the tools
		// as the server sent them.
		s.applyPins(fingerprintTools(tools))
		s.mu.Lock()
		pins = s.pin.states
		s.mu.Unlock()
	}
	tools, hidden := s.h.filterTools(s.cfg.ID, tools, pins)
	if hidden != "" {
		s.log.Warn(hidden)
		warnings = append(warnings, hidden)
	}
	s.mu.Lock()
	s.tools, s.warnings = tools, warnings
	s.mu.Unlock()
	return nil
}

func (s *server) refreshResources(ctx context.Context, sess *mcp.ClientSession) error {
	if s.caps(sess).Resources == nil {
		return nil
	}
	res, _, err := listAll(s, "resources/list", sess.Resources(ctx, nil))
	if err != nil {
		return err
	}
	tmpls, _, err := listAll(s, "resources/templates/list", sess.ResourceTemplates(ctx, nil))
	if err != nil {
		return err
	}
	res, tmpls = s.withoutOwnResources(res, tmpls)
	s.mu.Lock()
	s.resources, s.templates = res, tmpls
	s.mu.Unlock()
	return nil
}

func (s *server) refreshPrompts(ctx context.Context, sess *mcp.ClientSession) error {
	if s.caps(sess).Prompts == nil {
		return nil
	}
	prompts, _, err := listAll(s, "prompts/list", sess.Prompts(ctx, nil))
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.prompts = prompts
	s.mu.Unlock()
	return nil
}

// maxListed bounds what mcphost keeps of one list of one server: a server
// whose cursors never end, or that lists without end, costs bounded memory
// and time, and what is over the bound is left out with a warning.
const maxListed = 50_000

// listAll follows a list's pages (go-sdk's iterator sends the cursors) up
// to maxListed items, leaving out nil entries.
func listAll[T comparable](s *server, method string, pages iter.Seq2[T, error]) (items []T, warning string, err error) {
	var none T
	for v, err := range pages {
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", method, err)
		}
		if v == none {
			continue
		}
		if len(items) == maxListed {
			warning = fmt.Sprintf("%s: more than %d items; the rest left out", method, maxListed)
			s.log.Warn(warning)
			break
		}
		items = append(items, v)
	}
	return items, warning, nil
}

// toolAllowed applies the per-server tools.allow / tools.deny globs.
func (s *server) toolAllowed(name string) bool {
	for _, g := range s.cfg.Tools.Deny {
		if glob.Match(g, name) {
			return false
		}
	}
	if len(s.cfg.Tools.Allow) == 0 {
		return true
	}
	for _, g := range s.cfg.Tools.Allow {
		if glob.Match(g, name) {
			return true
		}
	}
	return false
}

func (s *server) toolCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tools)
}

// Limits on one tool's schemas. A model provider would refuse such a tool,
// and holding it costs every listing: it is left out, the server's other
// tools are kept.
const (
	maxSchemaBytes = 1 << 20
	// maxSchemaDepth is JSON nesting (each level of a JSON Schema's
	// "properties" is two).
	maxSchemaDepth = 100
)

// schemaProblem says why a tool's input or output schema is refused, or "".
func schemaProblem(t *mcp.Tool) string {
	for _, sc := range []struct {
		name   string
		schema any
	}{{"input schema", t.InputSchema}, {"output schema", t.OutputSchema}} {
		if sc.schema == nil {
			continue
		}
		data, err := json.Marshal(sc.schema)
		if err != nil {
			return fmt.Sprintf("its %s cannot be encoded: %v", sc.name, err)
		}
		if len(data) > maxSchemaBytes {
			return fmt.Sprintf("its %s is %.1f MiB, over the limit of %d MiB", sc.name, float64(len(data))/(1<<20), maxSchemaBytes>>20)
		}
		if d := jsonscan.Depth(data); d > maxSchemaDepth {
			return fmt.Sprintf("its %s nests %d levels deep, over the limit of %d", sc.name, d, maxSchemaDepth)
		}
	}
	return ""
}
