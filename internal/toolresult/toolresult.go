// Package toolresult checks and decodes MCP CallToolResults as go-sdk
// v1.8.0 does, without its decoder's cost.
//
// go-sdk's CallToolResult.UnmarshalJSON decodes through a streaming
// decoder that allocates 32 KiB per call (6 µs and 33 KB for a one-line
// result), and it is called once per transform plugin and once more for
// the result the chain hands back. Here the same wire form is mirrored and
// decoded with go-sdk's own decoder settings (segmentio's decoder, field
// names matched exactly). Neither function decides a refusal: false leaves
// the answer (and its error) to go-sdk. The fuzz tests hold both to
// go-sdk's answers.
package toolresult

import (
	"errors"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/segmentio/encoding/json"

	"github.com/mcphost/mcphost/internal/jsonscan"
)

// sdkMaxDepth is the nesting go-sdk's decoder refuses beyond.
const sdkMaxDepth = 1000

// flags are go-sdk's decoder settings (internal/json.NewDecoder).
const flags = json.DontMatchCaseInsensitiveStructFields

// Check reports whether data, valid JSON, is certainly a CallToolResult
// that go-sdk decodes. Texts are only checked to be strings and free-form
// values to be JSON whose numbers fit a float64: a result of megabytes is
// checked at the speed of finding its ends.
func Check(data []byte) bool {
	if jsonscan.Depth(data) > sdkMaxDepth {
		return false
	}
	var w wireResult[jsonString, anyJSON]
	if _, err := json.Parse(data, &w, flags); err != nil {
		return false
	}
	return contentOK(w.Content, callToolContent)
}

// Decode decodes data, valid JSON, to what go-sdk's UnmarshalJSON makes
// of it; ok is false for anything it leaves to go-sdk (a refusal, or a
// result that is not complete).
func Decode(data []byte) (res *mcp.CallToolResult, ok bool) {
	if jsonscan.Depth(data) > sdkMaxDepth {
		return nil, false
	}
	var w wireResult[string, any]
	if _, err := json.Parse(data, &w, flags); err != nil || w.InputRequests != nil || !contentOK(w.Content, callToolContent) {
		return nil, false
	}
	switch w.ResultType {
	case "":
		res = &mcp.CallToolResult{}
	case "complete":
		// What servers on 2026-07-28 send; go-sdk keeps it in an
		// unexported field, which a copy of its own decoding carries.
		t := completeTemplate
		res = &t
	default:
		return nil, false
	}
	res.Meta = w.Meta
	res.Content = make([]mcp.Content, 0, len(w.Content))
	res.StructuredContent = w.StructuredContent
	res.IsError = w.IsError
	res.RequestState = w.RequestState
	for _, c := range w.Content {
		res.Content = append(res.Content, content(c))
	}
	return res, true
}

// completeTemplate is go-sdk's decoding of an empty result of resultType
// "complete", less its content.
var completeTemplate = func() mcp.CallToolResult {
	var r mcp.CallToolResult
	if err := r.UnmarshalJSON([]byte(`{"content":[],"resultType":"complete"}`)); err != nil {
		panic("toolresult: go-sdk refuses a complete result: " + err.Error())
	}
	r.Content = nil
	return r
}()

// wireResult mirrors CallToolResult's wire form (its UnmarshalJSON), with
// S the type of texts and A of free-form values.
type wireResult[S, A any] struct {
	Meta              mcp.Meta             `json:"_meta,omitempty"`
	Content           []*wireContent[S, A] `json:"content"`
	StructuredContent A                    `json:"structuredContent,omitempty"`
	IsError           bool                 `json:"isError,omitempty"`
	InputRequests     mcp.InputRequestMap  `json:"inputRequests,omitempty"`
	RequestState      string               `json:"requestState,omitempty"`
	ResultType        string               `json:"resultType"`
}

// wireContent mirrors go-sdk's wireContent.
type wireContent[S, A any] struct {
	Type              string                `json:"type"`
	Text              S                     `json:"text,omitempty"`
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
	Input             map[string]A          `json:"input,omitempty"`
	ToolUseID         string                `json:"toolUseId,omitempty"`
	NestedContent     []*wireContent[S, A]  `json:"content,omitempty"`
	StructuredContent A                     `json:"structuredContent,omitempty"`
	IsError           bool                  `json:"isError,omitempty"`
}

// content is go-sdk's contentFromWire for an item contentOK passed.
func content(c *wireContent[string, any]) mcp.Content {
	switch c.Type {
	case "text":
		return &mcp.TextContent{Text: c.Text, Meta: c.Meta, Annotations: c.Annotations}
	case "image":
		return &mcp.ImageContent{MIMEType: c.MIMEType, Data: c.Data, Meta: c.Meta, Annotations: c.Annotations}
	case "audio":
		return &mcp.AudioContent{MIMEType: c.MIMEType, Data: c.Data, Meta: c.Meta, Annotations: c.Annotations}
	case "resource_link":
		return &mcp.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description,
			MIMEType: c.MIMEType, Size: c.Size, Meta: c.Meta, Annotations: c.Annotations, Icons: c.Icons}
	case "resource":
		return &mcp.EmbeddedResource{Resource: c.Resource, Meta: c.Meta, Annotations: c.Annotations}
	case "tool_use":
		return &mcp.ToolUseContent{ID: c.ID, Name: c.Name, Input: c.Input, Meta: c.Meta}
	}
	// tool_result (contentOK let nothing else through)
	r := &mcp.ToolResultContent{ToolUseID: c.ToolUseID, StructuredContent: c.StructuredContent, IsError: c.IsError, Meta: c.Meta}
	if c.NestedContent != nil {
		r.Content = make([]mcp.Content, 0, len(c.NestedContent))
		for _, n := range c.NestedContent {
			r.Content = append(r.Content, content(n))
		}
	}
	return r
}

// The content types go-sdk accepts in a CallToolResult, and inside a
// tool_result content item.
var (
	callToolContent   = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true, "tool_use": true, "tool_result": true}
	toolResultContent = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}
)

func contentOK[S, A any](items []*wireContent[S, A], allowed map[string]bool) bool {
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

// jsonString accepts what a Go string field accepts (a JSON string, whose
// invalid UTF-8 go-sdk would replace, or null) without decoding it.
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
