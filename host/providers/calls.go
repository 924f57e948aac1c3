package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/jsonscan"
)

// Limits on a tool call read from a model's reply.
const (
	// MaxArgumentBytes is the largest arguments object read, as JSON.
	MaxArgumentBytes = 1 << 20
	// maxArgumentDepth is the deepest nesting of the arguments read.
	maxArgumentDepth = 64
	// maxCallBytes bounds one call object: its arguments (escaped once
	// more when they are a JSON string) and a little around them.
	maxCallBytes = 2*MaxArgumentBytes + 64<<10
)

// ErrInvalidArguments: the model's arguments are not a JSON object, or are
// too large or too deep. Send the error back as the call's result
// (Result(call, nil, err)): models correct themselves.
var ErrInvalidArguments = errors.New("invalid tool arguments")

// Call is a tool call of the model, ready for host.Host.CallTool.
type Call struct {
	// ID is the provider's id of the call, which its result must carry:
	// tool_call_id (Chat Completions), call_id (Responses), the tool_use
	// block's id (Anthropic), the functionCall's id (Gemini, often empty).
	ID string
	// Name is the tool's name as the model wrote it.
	Name string
	// Tool is the public name: host.Host.CallTool's name argument.
	Tool string
	// Arguments are the arguments for CallTool, never nil.
	Arguments map[string]any
}

// wireCall holds every provider's shape of a tool call; each format reads
// its own fields.
type wireCall struct {
	ID       string `json:"id"`
	CallID   string `json:"call_id"`
	Name     string `json:"name"`
	Function *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	Arguments    json.RawMessage `json:"arguments"`
	Input        json.RawMessage `json:"input"`
	Args         json.RawMessage `json:"args"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

// ParseCall reads one tool call from the model's reply, in the format's
// shape:
//   - OpenAI, an element of message.tool_calls:
//     {"id","type":"function","function":{"name","arguments":"<JSON text>"}}
//   - OpenAIResponses, an output item {"type":"function_call","call_id","name","arguments":"<JSON text>"}
//   - Anthropic, a content block {"type":"tool_use","id","name","input":{...}}
//   - Gemini, a part {"functionCall":{"id","name","args":{...}}} or the functionCall itself
//   - MCP, tools/call params {"name","arguments":{...}}
//
// Arguments given as JSON text or as an object are both read. On an error
// the Call is still returned when its id and name could be read, so that
// the error can be answered as the call's result.
func (ts *Toolset) ParseCall(data []byte) (*Call, error) {
	if len(data) > maxCallBytes {
		return nil, fmt.Errorf("providers: %s: a tool call of %d bytes, over the limit of %d", ts.Format, len(data), maxCallBytes)
	}
	if d := jsonscan.Depth(data); d > maxArgumentDepth+2 {
		return nil, fmt.Errorf("providers: %s: a tool call nesting %d levels deep, over the limit of %d", ts.Format, d, maxArgumentDepth)
	}
	var w wireCall
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("providers: %s: a tool call that is not a JSON object of the expected shape: %v", ts.Format, err)
	}
	var id, name string
	var args json.RawMessage
	switch ts.Format {
	case OpenAI:
		if w.Function == nil {
			return nil, fmt.Errorf("providers: openai: a tool call without \"function\" (want {\"id\",\"type\":\"function\",\"function\":{\"name\",\"arguments\"}})")
		}
		id, name, args = w.ID, w.Function.Name, w.Function.Arguments
	case OpenAIResponses:
		id, name, args = w.CallID, w.Name, w.Arguments
		if id == "" {
			id = w.ID
		}
	case Anthropic:
		id, name, args = w.ID, w.Name, w.Input
	case Gemini:
		if fc := w.FunctionCall; fc != nil {
			id, name, args = fc.ID, fc.Name, fc.Args
		} else {
			id, name, args = w.ID, w.Name, w.Args
		}
	default: // MCP
		id, name, args = w.ID, w.Name, w.Arguments
	}
	return ts.NewCall(id, name, args)
}

// NewCall makes a Call from its parts, for callers who read the reply
// themselves: arguments is the JSON object of the arguments, or a JSON
// string holding it (as OpenAI sends them); empty means none.
func (ts *Toolset) NewCall(id, name string, arguments []byte) (*Call, error) {
	c := &Call{ID: id, Name: name}
	e, ok := ts.byProvider[name]
	if !ok {
		return c, fmt.Errorf("providers: %s: the model called %q, which is not one of the tools it was given: %w", ts.Format, cut(name, 128), host.ErrUnknownTool)
	}
	c.Tool = e.public
	args, err := decodeArguments(arguments)
	if err != nil {
		return c, fmt.Errorf("providers: %s: arguments of %s: %w: %v", ts.Format, e.public, ErrInvalidArguments, err)
	}
	e.plan.apply(args)
	c.Arguments = args
	return c, nil
}

// decodeArguments reads the arguments object, unwrapping it first when it
// comes as JSON text inside a JSON string.
func decodeArguments(raw []byte) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if len(raw) > maxCallBytes {
			return nil, fmt.Errorf("%d bytes, over the limit of %d", len(raw), MaxArgumentBytes)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("not a JSON string: %v", err)
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	if len(raw) > MaxArgumentBytes {
		return nil, fmt.Errorf("%d bytes, over the limit of %d", len(raw), MaxArgumentBytes)
	}
	if d := jsonscan.Depth(raw); d > maxArgumentDepth {
		return nil, fmt.Errorf("nesting %d levels deep, over the limit of %d", d, maxArgumentDepth)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // large integers reach the server exactly as the model wrote them
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not JSON: data after the object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a JSON %s, not an object", valueType(v))
	}
	return m, nil
}
