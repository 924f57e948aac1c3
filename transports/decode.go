package transports

import (
	stdjson "encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/segmentio/encoding/json"

	"github.com/mcphost/mcphost/internal/jsonscan"
)

// decodeMessage is jsonrpc.DecodeMessage for one frame that the caller
// owns (a frameSource's: nothing reuses it), without go-sdk's cost.
//
// go-sdk v1.8.0 decodes every message through a fresh streaming decoder
// over the bytes it already holds: a 32 KiB buffer per message and the
// message parsed twice (once to find its end, once to decode it). Every
// answer of a backend went that way. Here the same decoder (segmentio's,
// with go-sdk's flags: field names matched exactly) parses the frame once
// in place, and params, result and error data point into the frame
// instead of being copied out of it.
//
// The answer is go-sdk's, message for message: a frame this path does not
// take whole (anything but one complete, valid JSON-RPC 2.0 message no
// deeper than go-sdk accepts) goes to jsonrpc.DecodeMessage, which decides
// and words the error. FuzzDecodeMessage holds the two to the same answers.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	if msg, ok := decodeFast(data); ok {
		return msg, nil
	}
	return jsonrpc.DecodeMessage(data)
}

// wireMessage mirrors go-sdk's wire form of a message (jsonrpc2.wireDecode).
type wireMessage struct {
	VersionTag string             `json:"jsonrpc"`
	ID         any                `json:"id,omitempty"`
	Method     stdjson.RawMessage `json:"method"`
	Params     stdjson.RawMessage `json:"params,omitempty"`
	Result     stdjson.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error     `json:"error,omitempty"`
}

// sdkDecodeFlags are go-sdk's (internal/json.NewDecoder), plus: raw
// values point into the frame.
const sdkDecodeFlags = json.DontMatchCaseInsensitiveStructFields | json.DontCopyRawMessage

// decodeFast decodes data if it is one whole message go-sdk would take;
// false leaves the answer (and the error) to go-sdk.
func decodeFast(data []byte) (jsonrpc.Message, bool) {
	// go-sdk refuses a message nested deeper than sdkMaxDepth before it
	// decodes anything. (On valid JSON, which is all this path accepts,
	// jsonscan.Depth is the depth go-sdk measures.)
	if jsonscan.Depth(data) > sdkMaxDepth {
		return nil, false
	}
	var w wireMessage
	rest, err := json.Parse(data, &w, sdkDecodeFlags)
	// go-sdk would ignore what follows the first value; such a frame is
	// odd enough to leave to it.
	if err != nil || len(rest) != 0 || w.VersionTag != "2.0" {
		return nil, false
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, false
	}
	if len(w.Method) > 0 {
		var method string
		if _, err := json.Parse(w.Method, &method, sdkDecodeFlags); err != nil {
			return nil, false
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}, true
	}
	if !id.IsValid() {
		return nil, false
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error
	}
	return resp, true
}
