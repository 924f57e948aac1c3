// Package providers hands the host's tools to model provider APIs and
// brings the model's tool calls back.
//
// Convert turns the tools of a Host into the tool definitions of one
// provider API, with input schemas rewritten to what that API accepts and
// names that fit its limits. The Toolset it returns remembers the names and
// the rewrites, so that the model's tool calls can be turned back into
// host.Host.CallTool calls (ParseCall) and the results into the provider's
// tool-result content (Result):
//
//	ts, err := providers.Convert(providers.Anthropic, h.Tools(), nil)
//	// send ts.Tools as the request's "tools"; ts.Warnings say what was lost
//	call, err := ts.ParseCall(toolUseBlock) // a tool_use block of the reply
//	var res *mcp.CallToolResult
//	if err == nil {
//		res, err = h.CallTool(ctx, call.Tool, call.Arguments)
//	}
//	block := ts.Result(call, res, err) // a tool_result block for the next turn
//
// Every tool call of a reply must be answered, a failed one too: call is
// never nil, and Result turns err into a failed call the model reads.
//
// The formats are the Chat Completions and Responses APIs of OpenAI (and
// the many servers that copy them), Anthropic's Messages API, Gemini's
// function declarations, and MCP itself (the tools as the host lists them).
package providers

import (
	"fmt"
	"strings"
)

// Format is a provider API's tool format.
type Format string

// Formats.
const (
	// OpenAI is the Chat Completions API:
	// [{"type":"function","function":{"name","description","parameters","strict"}}].
	OpenAI Format = "openai"
	// OpenAIResponses is the Responses API:
	// [{"type":"function","name","description","parameters","strict"}].
	OpenAIResponses Format = "openai-responses"
	// Anthropic is the Messages API: [{"name","description","input_schema"}].
	Anthropic Format = "anthropic"
	// Gemini is Gemini's function declarations:
	// [{"name","description","parameters"}], which go in
	// tools[].functionDeclarations of a generateContent request.
	Gemini Format = "gemini"
	// MCP is the tools as MCP lists them, named by their public names.
	MCP Format = "mcp"
)

var formats = []Format{OpenAI, OpenAIResponses, Anthropic, Gemini, MCP}

// Formats lists every format, in the order help texts show them.
func Formats() []Format { return append([]Format(nil), formats...) }

// ParseFormat reads a format name as users type it (case and surrounding
// spaces do not matter).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if f.valid() {
		return f, nil
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("providers: unknown format %q (want one of %s)", cut(s, 64), strings.Join(names, ", "))
}

func (f Format) valid() bool {
	for _, g := range formats {
		if f == g {
			return true
		}
	}
	return false
}

// String returns the format's name.
func (f Format) String() string { return string(f) }

// OpenAITool is one tool of the Chat Completions API.
type OpenAITool struct {
	Type     string         `json:"type"` // "function"
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function of an OpenAITool.
type OpenAIFunction struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters"`
	// Strict is always written: the Responses API takes a missing strict
	// as true, and a schema that is not strict-safe is then refused.
	Strict bool `json:"strict"`
}

// ResponsesTool is one function tool of the Responses API.
type ResponsesTool struct {
	Type        string `json:"type"` // "function"
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters"`
	Strict      bool   `json:"strict"`
}

// AnthropicTool is one tool of the Messages API.
type AnthropicTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"input_schema"`
}

// GeminiFunctionDeclaration is one function declaration of the Gemini API.
type GeminiFunctionDeclaration struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is left out for a tool without parameters: Gemini refuses
	// an object schema whose properties are empty.
	Parameters any `json:"parameters,omitempty"`
}

// Warning is something a conversion lost or approximated. Tool and Path
// come from servers: escape them before showing them on a terminal.
type Warning struct {
	// Tool is the public name of the tool.
	Tool string `json:"tool"`
	// Path is a JSON Pointer into the tool's input schema ("" for the tool
	// itself, such as its name or description).
	Path string `json:"path,omitempty"`
	// Message says what was lost or changed, and what the model sees
	// instead.
	Message string `json:"message"`
}

func (w Warning) String() string {
	s := w.Message
	if w.Path != "" {
		s = w.Path + ": " + s
	}
	if w.Tool != "" {
		s = w.Tool + ": " + s
	}
	return s
}

// cut shortens outside text quoted in messages and errors.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xc0 == 0x80 { // not inside a UTF-8 sequence
		i--
	}
	return s[:i] + "…"
}
