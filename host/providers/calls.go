package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

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
	// Arguments are the arguments for CallTool: never nil when the call
	// was read without an error, nil when it was not.
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
// a Call is still returned, with the id and name that could be read (its
// Arguments nil), so that the error can be answered as the call's result:
// a provider refuses a request where a tool call goes unanswered. Only for
// data that is not a JSON object at all is the Call empty.
//
// The names are those of the request this Toolset made: parse a reply with
// the Toolset whose Tools were sent (a name changed to fit the provider
// may differ between Convert calls with other tools).
func (ts *Toolset) ParseCall(data []byte) (*Call, error) {
	h := readHead(data)
	id, name := h.id, h.name
	switch ts.Format {
	case OpenAI:
		name = h.fnName
	case OpenAIResponses:
		if h.callID != "" {
			id = h.callID
		}
	case Gemini:
		if h.hasFC {
			id, name = h.fcID, h.fcName
		}
	}
	partial := &Call{ID: id, Name: name}
	if public, ok := ts.PublicName(name); ok {
		partial.Tool = public
	}
	if len(data) > maxCallBytes {
		return partial, fmt.Errorf("providers: %s: a tool call of %d bytes, over the limit of %d: %w", ts.Format, len(data), maxCallBytes, ErrInvalidArguments)
	}
	if d := jsonscan.Depth(data); d > maxArgumentDepth+2 {
		return partial, fmt.Errorf("providers: %s: a tool call nesting %d levels deep, over the limit of %d: %w", ts.Format, d, maxArgumentDepth, ErrInvalidArguments)
	}
	var w wireCall
	if err := json.Unmarshal(data, &w); err != nil {
		return partial, fmt.Errorf("providers: %s: %s", ts.Format, shapeError(err))
	}
	var args json.RawMessage
	switch ts.Format {
	case OpenAI:
		if w.Function == nil {
			return partial, fmt.Errorf("providers: openai: a tool call without \"function\" (want {\"id\",\"type\":\"function\",\"function\":{\"name\",\"arguments\"}})")
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

// shapeError says what is wrong with a tool call that does not decode, in
// the provider's field names.
func shapeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "an object"
		if te.Type != nil && te.Type.Kind() == reflect.String {
			want = "a string"
		}
		if te.Field == "" {
			return fmt.Sprintf("a tool call that is a JSON %s, not an object", te.Value)
		}
		return fmt.Sprintf("a tool call whose %q is a JSON %s, not %s", te.Field, te.Value, want)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("a tool call that is not JSON (at byte %d: %v)", se.Offset, se)
	}
	return "a tool call that is not a JSON object of the expected shape"
}

// head is what identifies a call: its ids and names, read without its
// arguments, so that a call over the limits can still be answered.
type head struct {
	id, callID, name, fnName string
	fcID, fcName             string
	hasFC                    bool
}

// readHead reads the ids and names of a call object token by token,
// skipping every other value without keeping it (and without a depth
// limit: the limits are checked afterwards). It reads what it can of data
// that is cut short or broken.
func readHead(data []byte) head {
	var h head
	dec := json.NewDecoder(bytes.NewReader(data))
	readObject(dec, func(key string) bool {
		switch {
		case strings.EqualFold(key, "id"):
			h.id = readString(dec)
		case strings.EqualFold(key, "call_id"):
			h.callID = readString(dec)
		case strings.EqualFold(key, "name"):
			h.name = readString(dec)
		case strings.EqualFold(key, "function"):
			readObject(dec, func(k string) bool {
				if strings.EqualFold(k, "name") {
					h.fnName = readString(dec)
					return true
				}
				return skipValue(dec)
			})
		case strings.EqualFold(key, "functionCall"):
			h.hasFC = readObject(dec, func(k string) bool {
				switch {
				case strings.EqualFold(k, "id"):
					h.fcID = readString(dec)
				case strings.EqualFold(k, "name"):
					h.fcName = readString(dec)
				default:
					return skipValue(dec)
				}
				return true
			})
		default:
			return skipValue(dec)
		}
		return true
	})
	return h
}

// readObject reads an object's keys, calling member for each to read its
// value; false when the next value is not an object or a token fails.
func readObject(dec *json.Decoder, member func(key string) bool) bool {
	t, err := dec.Token()
	if err != nil {
		return false
	}
	if t != json.Delim('{') {
		skipRest(dec, t)
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok || !member(key) {
			return false
		}
	}
	_, err = dec.Token() // '}'
	return err == nil
}

// readString reads a string value ("" for another kind, skipped).
func readString(dec *json.Decoder) string {
	t, err := dec.Token()
	if err != nil {
		return ""
	}
	if s, ok := t.(string); ok {
		return s
	}
	skipRest(dec, t)
	return ""
}

// skipValue skips the next value; false when a token fails.
func skipValue(dec *json.Decoder) bool {
	t, err := dec.Token()
	return err == nil && skipRest(dec, t)
}

// skipRest skips the rest of a value whose first token was t.
func skipRest(dec *json.Decoder, t json.Token) bool {
	if t != json.Delim('{') && t != json.Delim('[') {
		return true
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return true
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
		if len(raw) > maxCallBytes { // JSON text escaped once more: up to about twice as long
			return nil, fmt.Errorf("%d bytes as a JSON string, over the limit of %d", len(raw), maxCallBytes)
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
