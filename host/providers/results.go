package providers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OpenAIToolMessage answers a Chat Completions tool call: a message of
// role "tool". Its content is text only (the API takes no images in tool
// messages), so images and other binary content are described in words.
type OpenAIToolMessage struct {
	Role       string `json:"role"` // "tool"
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

// ResponsesFunctionCallOutput answers a Responses API function call: an
// input item whose output is a string, or a list of parts when the result
// holds images.
type ResponsesFunctionCallOutput struct {
	Type   string `json:"type"` // "function_call_output"
	CallID string `json:"call_id"`
	Output any    `json:"output"` // string or []ResponsesOutputPart
}

// ResponsesOutputPart is one part of a function call's output. Its JSON
// has the fields of its type: "text" always for "input_text" (the API
// wants it, even empty), "image_url" and "detail" for "input_image".
type ResponsesOutputPart struct {
	Type     string `json:"type"` // "input_text" or "input_image"
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"` // a data: URL
	Detail   string `json:"detail,omitempty"`
}

// MarshalJSON writes the fields of the part's type.
func (p ResponsesOutputPart) MarshalJSON() ([]byte, error) {
	if p.Type == "input_text" {
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{p.Type, p.Text})
	}
	type plain ResponsesOutputPart // without this method
	return json.Marshal(plain(p))
}

// AnthropicToolResult answers a tool_use block: a content block of the
// next user message.
type AnthropicToolResult struct {
	Type      string             `json:"type"` // "tool_result"
	ToolUseID string             `json:"tool_use_id"`
	Content   []AnthropicContent `json:"content,omitempty"`
	IsError   bool               `json:"is_error,omitempty"`
}

// AnthropicContent is a text or image block of a tool result.
type AnthropicContent struct {
	Type   string                `json:"type"` // "text" or "image"
	Text   string                `json:"text,omitempty"`
	Source *AnthropicImageSource `json:"source,omitempty"`
}

// AnthropicImageSource is a base64 image.
type AnthropicImageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// GeminiFunctionResponsePart answers a Gemini functionCall: a part of the
// next user turn.
type GeminiFunctionResponsePart struct {
	FunctionResponse GeminiFunctionResponse `json:"functionResponse"`
}

// GeminiFunctionResponse is the result of a function call. Response holds
// "output" (the structured result when the tool gave one, its text
// otherwise) or, for a failure, "error".
type GeminiFunctionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

// Result turns the outcome of host.Host.CallTool for call into what the
// provider wants back: *OpenAIToolMessage, *ResponsesFunctionCallOutput,
// *AnthropicToolResult, *GeminiFunctionResponsePart or
// *mcp.CallToolResult. A non-nil err (the call failed before the tool
// answered: an unknown tool, a policy denial, a timeout) is reported as a
// failed call, so that the model learns of it and the conversation goes
// on. A nil call is taken as an empty one, whose answer carries no id:
// providers refuse that, so pass the Call ParseCall returned, which has
// the id also when it comes with an error.
func (ts *Toolset) Result(call *Call, res *mcp.CallToolResult, err error) any {
	if call == nil {
		call = &Call{}
	}
	if err != nil {
		res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Error: " + err.Error()}}}
	} else if res == nil {
		res = &mcp.CallToolResult{}
	}
	switch ts.Format {
	case OpenAI:
		text := joinText(parts(res, imageRules{}, "tool messages of the Chat Completions API carry text only"))
		if res.IsError {
			text = "The tool failed: " + strings.TrimPrefix(text, "Error: ")
		}
		return &OpenAIToolMessage{Role: "tool", ToolCallID: call.ID, Content: text}
	case OpenAIResponses:
		ps := parts(res, responsesImages, "")
		out := &ResponsesFunctionCallOutput{Type: "function_call_output", CallID: call.ID}
		if !slices.ContainsFunc(ps, func(p part) bool { return p.image != nil }) {
			out.Output = joinText(ps)
			return out
		}
		list := make([]ResponsesOutputPart, 0, len(ps))
		for _, p := range ps {
			if p.image != nil {
				list = append(list, ResponsesOutputPart{Type: "input_image", Detail: "auto",
					ImageURL: "data:" + p.mime + ";base64," + base64.StdEncoding.EncodeToString(p.image)})
			} else {
				list = append(list, ResponsesOutputPart{Type: "input_text", Text: p.text})
			}
		}
		out.Output = list
		return out
	case Anthropic:
		out := &AnthropicToolResult{Type: "tool_result", ToolUseID: call.ID, IsError: res.IsError}
		for _, p := range parts(res, anthropicImages, "") {
			if p.image != nil {
				out.Content = append(out.Content, AnthropicContent{Type: "image", Source: &AnthropicImageSource{
					Type: "base64", MediaType: p.mime, Data: base64.StdEncoding.EncodeToString(p.image)}})
			} else if p.text != "" { // Anthropic refuses empty text blocks
				out.Content = append(out.Content, AnthropicContent{Type: "text", Text: p.text})
			}
		}
		return out
	case Gemini:
		resp := map[string]any{}
		switch {
		case res.IsError:
			resp["error"] = strings.TrimPrefix(joinText(parts(res, imageRules{}, "")), "Error: ")
		case res.StructuredContent != nil:
			resp["output"] = res.StructuredContent
		default:
			resp["output"] = joinText(parts(res, imageRules{}, "function responses carry no images here"))
		}
		return &GeminiFunctionResponsePart{FunctionResponse: GeminiFunctionResponse{ID: call.ID, Name: call.Name, Response: resp}}
	default: // MCP
		return res
	}
}

// part is a piece of a result: text, or an image the provider takes.
type part struct {
	text  string
	image []byte
	mime  string
}

// parts lists a result's content for a provider that takes the images its
// rules let through; the others are described in words, saying why
// (noImages, when set). A result without content gives its structured
// content as JSON text.
func parts(res *mcp.CallToolResult, rules imageRules, noImages string) []part {
	var out []part
	count, total := 0, 0
	image := func(data []byte, declared, what string) {
		mime, why := rules.check(data, count, total)
		if why == "" {
			count++
			total += base64.StdEncoding.EncodedLen(len(data))
			out = append(out, part{image: data, mime: mime})
			return
		}
		if noImages != "" {
			why = noImages
		}
		out = append(out, part{text: fmt.Sprintf("[%s %s, %d bytes: %s]", what, orUnknown(declared), len(data), why)})
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, part{text: c.Text})
		case *mcp.ImageContent:
			image(c.Data, c.MIMEType, "image")
		case *mcp.AudioContent:
			out = append(out, part{text: fmt.Sprintf("[audio %s, %d bytes: not passed on]", orUnknown(c.MIMEType), len(c.Data))})
		case *mcp.ResourceLink:
			label := c.Title
			if label == "" {
				label = c.Name
			}
			out = append(out, part{text: fmt.Sprintf("[resource link %s: %s]", c.URI, label)})
		case *mcp.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Blob == nil:
				out = append(out, part{text: fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)})
			case strings.HasPrefix(r.MIMEType, "image/"):
				image(r.Blob, r.MIMEType, "image resource "+r.URI)
			default:
				out = append(out, part{text: fmt.Sprintf("[resource %s, %s, %d bytes: not passed on]", r.URI, orUnknown(r.MIMEType), len(r.Blob))})
			}
		case nil:
		default:
			out = append(out, part{text: fmt.Sprintf("[content of type %T: not passed on]", c)})
		}
	}
	if len(out) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out = append(out, part{text: string(b)})
		}
	}
	return out
}

func joinText(ps []part) string {
	texts := make([]string, 0, len(ps))
	for _, p := range ps {
		if p.image == nil {
			texts = append(texts, p.text)
		}
	}
	return strings.Join(texts, "\n")
}

func orUnknown(mime string) string {
	if mime == "" {
		return "of unknown type"
	}
	return mime
}
