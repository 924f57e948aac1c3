package host

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/builtin"
)

// Resources lists the resources of one server (serverID != "") or of every
// ready server, following pagination. It asks the servers afresh.
func (h *Host) Resources(ctx context.Context, serverID string) ([]Resource, error) {
	if serverID == ResultsServer {
		return h.storedResults(), nil
	}
	res, err := collect(h, ctx, serverID, (*server).refreshResources, func(s *server) []Resource {
		out := make([]Resource, len(s.resources))
		for i, r := range s.resources {
			out[i] = Resource{Server: s.cfg.ID, Resource: r}
		}
		return out
	})
	if serverID == "" {
		res = append(res, h.storedResults()...)
	}
	return res, err
}

// ResultsServer is the pseudo-server id under which full results of
// truncated calls are listed (mcphost://results/<id>).
const ResultsServer = "mcphost"

func (h *Host) storedResults() []Resource {
	if h.opts.results == nil {
		return nil
	}
	var out []Resource
	for _, r := range h.opts.results.List() {
		out = append(out, Resource{Server: ResultsServer, Resource: &mcp.Resource{
			URI: builtin.ResultURIPrefix + r.ID, Name: "result-" + r.ID, MIMEType: "application/json",
			Description: "full result of " + r.Server + ":" + r.Tool,
		}})
	}
	return out
}

// readStoredResult serves mcphost://results/<id>.
func (h *Host) readStoredResult(uri string) (*mcp.ReadResourceResult, error) {
	if h.opts.results != nil {
		if r, ok := h.opts.results.Get(uri); ok {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: uri, MIMEType: "application/json", Text: string(r.JSON),
			}}}, nil
		}
	}
	return nil, fmt.Errorf("host: resource %q: %w: no stored result has that id (results are kept in a bounded store; old ones are dropped)", uri, ErrUnknownResource)
}

// ListedResources returns the resources and templates of one server
// (serverID != "") or of every ready server as last listed, without asking
// the servers: at connect, and again on every resources/list_changed. Right
// after Start (a one-shot command) that is what the servers just said;
// Resources and ResourceTemplates ask afresh.
func (h *Host) ListedResources(serverID string) ([]Resource, []ResourceTemplate) {
	var res []Resource
	var tmpls []ResourceTemplate
	for _, s := range h.list() {
		if serverID != "" && s.cfg.ID != serverID {
			continue
		}
		s.mu.Lock()
		if s.state == StateReady {
			for _, r := range s.resources {
				res = append(res, Resource{Server: s.cfg.ID, Resource: r})
			}
			for _, r := range s.templates {
				tmpls = append(tmpls, ResourceTemplate{Server: s.cfg.ID, ResourceTemplate: r})
			}
		}
		s.mu.Unlock()
	}
	if serverID == "" || serverID == ResultsServer {
		res = append(res, h.storedResults()...)
	}
	return res, tmpls
}

// ResourceTemplates lists resource templates, like Resources.
func (h *Host) ResourceTemplates(ctx context.Context, serverID string) ([]ResourceTemplate, error) {
	return collect(h, ctx, serverID, (*server).refreshResources, func(s *server) []ResourceTemplate {
		out := make([]ResourceTemplate, len(s.templates))
		for i, r := range s.templates {
			out[i] = ResourceTemplate{Server: s.cfg.ID, ResourceTemplate: r}
		}
		return out
	})
}

// collect re-fetches a list from one server or every ready server and
// gathers what pick reads from each (under the server's lock).
func collect[T any](h *Host, ctx context.Context, serverID string,
	refresh func(*server, context.Context, *mcp.ClientSession) error, pick func(*server) []T) ([]T, error) {
	var mu sync.Mutex
	got := map[*server][]T{}
	err := h.eachServer(ctx, serverID, func(ctx context.Context, s *server, sess *mcp.ClientSession) error {
		if err := refresh(s, ctx, sess); err != nil {
			return err
		}
		s.mu.Lock()
		items := pick(s)
		s.mu.Unlock()
		mu.Lock()
		got[s] = items
		mu.Unlock()
		return nil
	})
	// In server order, whichever answered first.
	var out []T
	for _, s := range h.list() {
		out = append(out, got[s]...)
	}
	return out, err
}

// ReadResource reads a resource. With server == "" the server is found from
// the listed resources, then from the templates whose pattern matches uri.
func (h *Host) ReadResource(ctx context.Context, serverID, uri string) (*mcp.ReadResourceResult, error) {
	if OwnURI(uri) {
		// Never a server's to answer, whatever it listed.
		if serverID != "" && serverID != ResultsServer {
			return nil, ownURIError(serverID, uri)
		}
		return h.readStoredResult(uri)
	}
	if serverID == "" {
		var err error
		if serverID, err = h.resourceOwner(uri); err != nil {
			return nil, err
		}
	}
	res, err := request(h, ctx, serverID, "resources/read "+quote(uri), func(ctx context.Context, sess *mcp.ClientSession) (*mcp.ReadResourceResult, error) {
		return sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	})
	if res != nil {
		withoutOwnContents(serverID, uri, res.Contents)
	}
	return res, err
}

// request makes one request to a ready server under its request_timeout and
// the host's lifetime, explaining a failure (what names the request).
func request[T any](h *Host, ctx context.Context, serverID, what string, fn func(context.Context, *mcp.ClientSession) (T, error)) (T, error) {
	var zero T
	s, err := h.server(serverID)
	if err != nil {
		return zero, err
	}
	rctx, cancel := s.requestContext(ctx, 0)
	defer cancel()
	rctx = withAuthOutcome(rctx)
	var res T
	sess, err := s.send(rctx, func(ctx context.Context, sess *mcp.ClientSession) (err error) {
		res, err = fn(ctx, sess)
		return err
	})
	if err != nil && sess == nil {
		return zero, err
	}
	if err != nil {
		return zero, s.callError(ctx, rctx, sess, what, s.cfg.RequestTimeout, err)
	}
	return res, nil
}

// resourceOwner finds which ready server lists uri, exactly or by template.
func (h *Host) resourceOwner(uri string) (string, error) {
	var byTemplate []string
	for _, s := range h.list() {
		s.mu.Lock()
		ready := s.state == StateReady
		exact := ready && slices.ContainsFunc(s.resources, func(r *mcp.Resource) bool { return r.URI == uri })
		tmpl := ready && slices.ContainsFunc(s.templates, func(t *mcp.ResourceTemplate) bool { return templateMatches(t.URITemplate, uri) })
		s.mu.Unlock()
		if exact {
			return s.cfg.ID, nil
		}
		if tmpl {
			byTemplate = append(byTemplate, s.cfg.ID)
		}
	}
	switch len(byTemplate) {
	case 1:
		return byTemplate[0], nil
	case 0:
		return "", fmt.Errorf("host: resource %q: %w: no ready server lists it (name the server explicitly)", uri, ErrUnknownResource)
	}
	return "", fmt.Errorf("host: resource %q: %w: it matches templates of several servers (%s); name the server explicitly", uri, ErrUnknownResource, strings.Join(byTemplate, ", "))
}

// templateMatches reports whether uri fits an RFC 6570 URI template, reading
// every {expression} as "one or more characters". That is enough to route a
// read to the right server; the server itself validates the URI.
func templateMatches(template, uri string) bool {
	var b strings.Builder
	b.WriteString("^")
	rest := template
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return false
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		b.WriteString(".+")
		rest = rest[i+j+1:]
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(uri)
}

// Prompts lists the prompts of one server or of every ready server.
func (h *Host) Prompts(ctx context.Context, serverID string) ([]Prompt, error) {
	return collect(h, ctx, serverID, (*server).refreshPrompts, func(s *server) []Prompt {
		out := make([]Prompt, len(s.prompts))
		for i, p := range s.prompts {
			out[i] = Prompt{Server: s.cfg.ID, Display: s.cfg.ID + ":" + p.Name, Prompt: p}
		}
		return out
	})
}

// ListedPrompts gives the prompts of ready servers (serverID "" for all)
// as last fetched — at connect and on list_changed — without asking the
// servers again (Prompts asks).
func (h *Host) ListedPrompts(serverID string) []Prompt {
	var out []Prompt
	for _, s := range h.list() {
		if serverID != "" && s.cfg.ID != serverID {
			continue
		}
		s.mu.Lock()
		if s.state == StateReady {
			for _, p := range s.prompts {
				out = append(out, Prompt{Server: s.cfg.ID, Display: s.cfg.ID + ":" + p.Name, Prompt: p})
			}
		}
		s.mu.Unlock()
	}
	return out
}

// GetPrompt renders a prompt. name is "server:prompt", or the bare prompt
// name when only one ready server has a prompt of that name.
func (h *Host) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	serverID, prompt, err := h.resolvePrompt(name)
	if err != nil {
		return nil, err
	}
	res, err := request(h, ctx, serverID, "prompt "+quote(prompt), func(ctx context.Context, sess *mcp.ClientSession) (*mcp.GetPromptResult, error) {
		return sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt, Arguments: args})
	})
	if res != nil {
		for _, m := range res.Messages {
			if m != nil && m.Content != nil {
				m.Content = withoutOwnLinks(serverID, []mcp.Content{m.Content})[0]
			}
		}
	}
	return res, err
}

// ListedPrompt returns the prompt GetPrompt would get for name, as last
// listed, so that its arguments can be checked before the get; false when
// name resolves to no listed prompt (GetPrompt then says why, or asks the
// server about a prompt it did not list).
func (h *Host) ListedPrompt(name string) (Prompt, bool) {
	serverID, prompt, err := h.resolvePrompt(name)
	if err != nil {
		return Prompt{}, false
	}
	for _, p := range h.ListedPrompts(serverID) {
		if p.Prompt != nil && p.Name == prompt {
			return p, true
		}
	}
	return Prompt{}, false
}

func (h *Host) resolvePrompt(name string) (serverID, prompt string, err error) {
	if id, p, ok := strings.Cut(name, ":"); ok {
		if _, err := h.server(id); err == nil {
			return id, p, nil
		}
	}
	var owners []string
	for _, s := range h.list() {
		s.mu.Lock()
		if s.state == StateReady && slices.ContainsFunc(s.prompts, func(p *mcp.Prompt) bool { return p.Name == name }) {
			owners = append(owners, s.cfg.ID)
		}
		s.mu.Unlock()
	}
	switch len(owners) {
	case 1:
		return owners[0], name, nil
	case 0:
		return "", "", fmt.Errorf("host: prompt %q: %w (list prompts with \"mcphost prompts\")", name, ErrUnknownPrompt)
	}
	return "", "", fmt.Errorf("host: prompt %q: %w: several servers offer it (%s); write it as server:%s", name, ErrUnknownPrompt, strings.Join(owners, ", "), name)
}

// Complete asks a server for argument completions (completion/complete).
func (h *Host) Complete(ctx context.Context, serverID string, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return request(h, ctx, serverID, "completion/complete", func(ctx context.Context, sess *mcp.ClientSession) (*mcp.CompleteResult, error) {
		return sess.Complete(ctx, params)
	})
}

// eachServer runs fn for one named server, or for every ready server when
// id is empty. A named server that is not ready is an error; with every
// server, the ones that fail are skipped and their errors joined.
func (h *Host) eachServer(ctx context.Context, id string, fn func(context.Context, *server, *mcp.ClientSession) error) error {
	run := func(s *server) error {
		sess, err := s.readySession()
		if err != nil {
			return err
		}
		rctx, cancel := s.requestContext(ctx, 0)
		defer cancel()
		rctx = withAuthOutcome(rctx)
		if err := fn(rctx, s, sess); err != nil {
			return s.callError(ctx, rctx, sess, "list", s.cfg.RequestTimeout, err)
		}
		return nil
	}
	if id != "" {
		s, err := h.server(id)
		if err != nil {
			return err
		}
		return run(s)
	}
	// Every ready server at once: one slow server costs its own time only.
	servers := h.list()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		s.mu.Lock()
		ready := s.state == StateReady
		s.mu.Unlock()
		if !ready {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = run(s)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
