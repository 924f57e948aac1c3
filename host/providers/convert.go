package providers

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// Options adjust Convert; nil means the defaults.
type Options struct {
	// NonStrict sends OpenAI schemas as the servers wrote them, with
	// strict false, instead of rewriting them for strict mode (where the
	// model's arguments always match the schema). Only what OpenAI refuses
	// even then is fixed, as for a schema that cannot be made strict (an
	// array without items gets items {}; see normalizer).
	NonStrict bool
}

// Limits of Convert.
const (
	// MaxTools is the most tools one Convert takes.
	MaxTools = 10_000
	// openAIMaxTools: OpenAI's APIs take at most 128 tools in a request.
	openAIMaxTools = 128
	// openAIMaxDescription: the Chat Completions API refuses longer
	// function descriptions (string_above_max_length).
	openAIMaxDescription = 1024
)

// Toolset is a set of tools converted for one provider. Send Tools to the
// model; keep the Toolset to read the model's calls (ParseCall) and to
// answer them (Result). It is safe for concurrent use once built.
//
// Read a reply with the Toolset whose Tools went into its request: a name
// changed to fit the provider depends on the other tools converted with
// it, so a Toolset of another Convert call (tools added or removed) may
// map it to another tool, or to none.
type Toolset struct {
	Format Format
	// Tools is what goes into the request's tool list, one element per
	// tool, in the order given: *OpenAITool, *ResponsesTool,
	// *AnthropicTool, *GeminiFunctionDeclaration or *mcp.Tool.
	// json.Marshal(ts.Tools) is the provider's JSON array.
	Tools []any
	// Warnings list what the conversion lost or approximated, tool by tool.
	Warnings []Warning

	byProvider map[string]*toolEntry // provider name -> tool
	byPublic   map[string]string     // public name -> provider name
}

type toolEntry struct {
	public string
	plan   *argPlan // OpenAI strict mode's argument fix-ups, or nil
}

// Convert turns tools (as host.Host.Tools lists them) into format's tool
// definitions. A tool that the policy always denies (host.Tool.Denied, as
// host.Host.AllTools marks them) is left out: a model is never offered a
// tool whose every call would be refused. It fails only for a format it does not know, too many
// tools, tool names that are empty or not unique, or a name changed to fit
// the provider for which no free name is found (only a flood of crafted
// names gets there); whatever a schema holds, the tool is converted, and
// what could not be is in Warnings.
func Convert(format Format, tools []host.Tool, opts *Options) (*Toolset, error) {
	if !format.valid() {
		_, err := ParseFormat(string(format))
		return nil, err
	}
	if slices.ContainsFunc(tools, func(t host.Tool) bool { return t.Denied != "" }) {
		tools = slices.DeleteFunc(slices.Clone(tools), func(t host.Tool) bool { return t.Denied != "" })
	}
	if len(tools) > MaxTools {
		return nil, fmt.Errorf("providers: %d tools, over the limit of %d; filter them first (config: tools.allow / tools.deny)", len(tools), MaxTools)
	}
	if opts == nil {
		opts = &Options{}
	}
	public := make([]string, len(tools))
	for i, t := range tools {
		public[i] = t.Name
	}
	names, err := assignNames(format, public)
	if err != nil {
		return nil, err
	}
	ts := &Toolset{
		Format:     format,
		Tools:      make([]any, 0, len(tools)),
		byProvider: make(map[string]*toolEntry, len(tools)),
		byPublic:   names,
	}
	if (format == OpenAI || format == OpenAIResponses) && len(tools) > openAIMaxTools {
		ts.Warnings = append(ts.Warnings, Warning{Message: fmt.Sprintf(
			"%d tools: OpenAI takes at most %d in one request; filter them (config: tools.allow / tools.deny)", len(tools), openAIMaxTools)})
	}
	for _, t := range tools {
		name := names[t.Name]
		entry := &toolEntry{public: t.Name}
		ts.byProvider[name] = entry
		if name != t.Name {
			ts.warn(t.Name, "", "the name does not fit %s's limits: the model sees %q, mapped back on calls", format, name)
		}
		ts.Tools = append(ts.Tools, ts.convertTool(t, name, entry, opts))
	}
	return ts, nil
}

func (ts *Toolset) warn(tool, path, format string, args ...any) {
	ts.Warnings = append(ts.Warnings, Warning{Tool: tool, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (ts *Toolset) convertTool(t host.Tool, name string, entry *toolEntry, opts *Options) any {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	decoded, err := decodeSchema(t.InputSchema)
	if err != nil {
		ts.warn(t.Name, "", "the input schema %v: the tool is offered without parameters", err)
		decoded = nil
	}
	if ts.Format == MCP {
		schema := decoded
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		return &mcp.Tool{Name: name, Title: t.Title, Description: t.Description,
			InputSchema: schema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
	}
	decodedRoot, _ := decoded.(map[string]any)
	w := newWalker(t.Name, decodedRoot)
	root := w.rootObject(decoded)
	ts.Warnings = append(ts.Warnings, w.allWarnings()...)

	switch ts.Format {
	case OpenAI, OpenAIResponses:
		var params any
		strict := false
		if !opts.NonStrict {
			s, plan, warnings, err := toStrict(t.Name, decodedRoot, root)
			var ns *notStrict
			switch {
			case err == nil:
				params, strict, entry.plan = s, true, plan
				ts.Warnings = append(ts.Warnings, warnings...)
			case errors.As(err, &ns):
				ts.warn(t.Name, ns.path, "not strict-safe (%s): sent with strict false, the model may send arguments that do not match", ns.reason)
			}
		}
		if !strict {
			// As written, but for what OpenAI refuses even with strict off.
			s, warnings := normalize(t.Name, root, true)
			params = s
			ts.Warnings = append(ts.Warnings, warnings...)
		}
		if ts.Format == OpenAIResponses {
			return &ResponsesTool{Type: "function", Name: name, Description: desc, Parameters: params, Strict: strict}
		}
		if utf8.RuneCountInString(desc) > openAIMaxDescription {
			ts.warn(t.Name, "", "the description has %d characters, over the Chat Completions API's %d: it is cut", utf8.RuneCountInString(desc), openAIMaxDescription)
			desc = string([]rune(desc)[:openAIMaxDescription-1]) + "…"
		}
		return &OpenAITool{Type: "function", Function: OpenAIFunction{Name: name, Description: desc, Parameters: params, Strict: strict}}
	case Anthropic:
		s, warnings := normalize(t.Name, root, false)
		ts.Warnings = append(ts.Warnings, warnings...)
		return &AnthropicTool{Name: name, Description: desc, InputSchema: s}
	default: // Gemini
		params, warnings := toGemini(t.Name, decodedRoot, root)
		ts.Warnings = append(ts.Warnings, warnings...)
		decl := &GeminiFunctionDeclaration{Name: name, Description: desc}
		if params != nil { // a nil map in an any would be written as null
			decl.Parameters = params
		}
		return decl
	}
}

// ProviderName returns the name the model knows the tool of this public
// name by.
func (ts *Toolset) ProviderName(public string) (string, bool) {
	n, ok := ts.byPublic[public]
	return n, ok
}

// PublicName returns the public name (for host.Host.CallTool) of the tool
// the model knows by name.
func (ts *Toolset) PublicName(name string) (string, bool) {
	e, ok := ts.byProvider[name]
	if !ok {
		return "", false
	}
	return e.public, true
}
