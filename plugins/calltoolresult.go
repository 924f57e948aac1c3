package plugins

import (
	"errors"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/mcphost/mcphost/internal/jsonscan"
)

// sdkMaxDepth is the nesting go-sdk's decoder refuses beyond.
const sdkMaxDepth = 1000

// looksLikeCallToolResult reports whether data (valid JSON) is certainly a
// CallToolResult that go-sdk decodes, by decoding it into a mirror of
// go-sdk v1.8.0's wire form with go-sdk's own decoder settings. go-sdk's
// CallToolResult.UnmarshalJSON does the same through a streaming decoder
// that allocates 32 KiB per call: 6 µs and 33 KB for a one-line result,
// paid once per transform plugin; and it decodes every text, where
// checking that it is a string is enough (about 4 ms for 1 MiB of text). false says nothing: the caller asks
// go-sdk, which decides and words the error. FuzzCallToolResultCheck holds
// the mirror to go-sdk's answers.
func looksLikeCallToolResult(data []byte) bool {
	if jsonscan.Depth(data) > sdkMaxDepth {
		return false
	}
	var w wireResult
	if _, err := fastjson.Parse(data, &w, fastjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return false
	}
	return contentOK(w.Content, callToolContent)
}

// wireResult mirrors CallToolResult's wire form (its UnmarshalJSON).
type wireResult struct {
	Meta              mcp.Meta            `json:"_meta,omitempty"`
	Content           []*wireContent      `json:"content"`
	StructuredContent anyJSON             `json:"structuredContent,omitempty"`
	IsError           bool                `json:"isError,omitempty"`
	InputRequests     mcp.InputRequestMap `json:"inputRequests,omitempty"`
	RequestState      string              `json:"requestState,omitempty"`
	ResultType        string              `json:"resultType"`
}

// wireContent mirrors go-sdk's wireContent.
type wireContent struct {
	Type              string                `json:"type"`
	Text              jsonString            `json:"text,omitempty"`
	MIMEType          string                `json:"mimeType,omitempty"`
	Data              []byte                `json:"data,omitempty"`
	Resource          *mcp.ResourceContents `json:"resource,omitempty"`
	URI               string                `json:"uri,omitempty"`
	Name              string                `json:"name,omitempty"`
	Title             string                `json:"title,omitempty"`
	Description       string                `json:"description,omitempty"`
	Size              *int64                `json:"size,omitempty"`
	Meta              mcp.Meta              `json:"_meta,omitempty"`
	Annotations       *mcp.Annotations      `json:"annotations,omitempty"`
	Icons             []mcp.Icon            `json:"icons,omitempty"`
	ID                string                `json:"id,omitempty"`
	Input             map[string]anyJSON    `json:"input,omitempty"`
	ToolUseID         string                `json:"toolUseId,omitempty"`
	NestedContent     []*wireContent        `json:"content,omitempty"`
	StructuredContent anyJSON               `json:"structuredContent,omitempty"`
	IsError           bool                  `json:"isError,omitempty"`
}

// jsonString accepts what a Go string field accepts (a JSON string, whose
// invalid UTF-8 go-sdk would replace, or null) without decoding it: a
// text of megabytes is checked at the speed of finding its end.
type jsonString struct{}

func (*jsonString) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && (data[0] == '"' || string(data) == "null") {
		return nil
	}
	return errNotDecodable
}

// anyJSON accepts what an any field does, without decoding it: any JSON
// value whose numbers fit a float64 (go-sdk refuses 1e400).
type anyJSON struct{}

func (*anyJSON) UnmarshalJSON(data []byte) error {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(data) && strings.IndexByte("+-.eE0123456789", data[j]) >= 0 {
				j++
			}
			if _, err := strconv.ParseFloat(string(data[i:j]), 64); err != nil {
				return errNotDecodable
			}
			i = j - 1
		}
	}
	return nil
}

var errNotDecodable = errors.New("not what go-sdk decodes")

// The content types go-sdk accepts in a CallToolResult, and inside a
// tool_result content item.
var (
	callToolContent   = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true, "tool_use": true, "tool_result": true}
	toolResultContent = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}
)

func contentOK(items []*wireContent, allowed map[string]bool) bool {
	for _, c := range items {
		if c == nil || !allowed[c.Type] {
			return false
		}
		if c.Type == "tool_result" && c.NestedContent != nil && !contentOK(c.NestedContent, toolResultContent) {
			return false
		}
	}
	return true
}
