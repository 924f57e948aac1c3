package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcphost/mcphost/host/providers"
)

// reply is what the model said in one turn: text, and the tool calls it
// asks for, each a JSON object in the provider's shape for
// providers.Toolset.ParseCall.
type reply struct {
	text  string
	calls []json.RawMessage
}

// conversation is one provider API's side of the chat: it keeps the
// messages in the provider's own shape.
type conversation interface {
	// send posts the conversation and the tools, and adds the model's reply
	// to the conversation.
	send(ctx context.Context) (reply, error)
	// answer adds the results of the last reply's tool calls, made by
	// providers.Toolset.Result, in the order of the calls.
	answer(results []any)
}

func newConversation(s *settings, tools []any, prompt string) conversation {
	switch s.format {
	case providers.OpenAIResponses:
		return &responsesChat{s: s, tools: tools, input: []any{map[string]any{"role": "user", "content": prompt}}}
	case providers.Anthropic:
		return &anthropicChat{s: s, tools: tools, messages: []any{map[string]any{"role": "user", "content": prompt}}}
	case providers.Gemini:
		return &geminiChat{s: s, tools: tools, contents: []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": prompt}}}}}
	default:
		return &openAIChat{s: s, tools: tools, messages: []any{map[string]any{"role": "user", "content": prompt}}}
	}
}

// openAIChat speaks the Chat Completions API (POST {base}/chat/completions).
type openAIChat struct {
	s        *settings
	tools    []any
	messages []any
}

func (c *openAIChat) send(ctx context.Context) (reply, error) {
	var resp struct {
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	if err := c.s.postOpenAI(ctx, "/chat/completions", "messages", c.messages, c.tools, &resp); err != nil {
		return reply{}, err
	}
	if len(resp.Choices) == 0 {
		return reply{}, errors.New("agent: openai: a reply without choices")
	}
	var msg struct {
		Content   string            `json:"content"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
	}
	if err := json.Unmarshal(resp.Choices[0].Message, &msg); err != nil {
		return reply{}, fmt.Errorf("agent: openai: a reply message of an unknown shape: %v", err)
	}
	// The assistant message goes back as the model wrote it.
	c.messages = append(c.messages, resp.Choices[0].Message)
	return reply{text: msg.Content, calls: msg.ToolCalls}, nil
}

func (c *openAIChat) answer(results []any) { c.messages = append(c.messages, results...) }

// postOpenAI posts a request of either OpenAI API: the model, the
// conversation so far under key, the tools if any, and the API key as a
// bearer token.
func (s *settings) postOpenAI(ctx context.Context, path, key string, conversation, tools []any, out any) error {
	body := map[string]any{"model": s.model, key: conversation}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	header := map[string]string{}
	if s.apiKey != "" {
		header["Authorization"] = "Bearer " + s.apiKey
	}
	return s.post(ctx, s.baseURL+path, header, body, out)
}

// responsesChat speaks the Responses API (POST {base}/responses), sending
// the whole conversation each time (every output item is passed back, as
// OpenAI asks, rather than a previous_response_id).
type responsesChat struct {
	s     *settings
	tools []any
	input []any
}

func (c *responsesChat) send(ctx context.Context) (reply, error) {
	var resp struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := c.s.postOpenAI(ctx, "/responses", "input", c.input, c.tools, &resp); err != nil {
		return reply{}, err
	}
	var r reply
	var texts []string
	for _, item := range resp.Output {
		var it struct {
			Type    string `json:"type"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(item, &it) != nil {
			continue
		}
		switch it.Type {
		case "function_call":
			r.calls = append(r.calls, item)
		case "message":
			for _, p := range it.Content {
				if p.Type == "output_text" {
					texts = append(texts, p.Text)
				}
			}
		}
		// Every output item (reasoning ones too) goes back in the next
		// request's input.
		c.input = append(c.input, item)
	}
	r.text = strings.Join(texts, "\n")
	return r, nil
}

func (c *responsesChat) answer(results []any) { c.input = append(c.input, results...) }

// anthropicChat speaks the Messages API (POST {base}/v1/messages).
type anthropicChat struct {
	s        *settings
	tools    []any
	messages []any
}

// anthropicMaxTokens bounds each reply; the API wants a bound.
const anthropicMaxTokens = 4096

func (c *anthropicChat) send(ctx context.Context) (reply, error) {
	body := map[string]any{"model": c.s.model, "max_tokens": anthropicMaxTokens, "messages": c.messages}
	if len(c.tools) > 0 {
		body["tools"] = c.tools
	}
	header := map[string]string{"anthropic-version": "2023-06-01"}
	if c.s.apiKey != "" {
		header["x-api-key"] = c.s.apiKey
	}
	var resp struct {
		Content []json.RawMessage `json:"content"`
	}
	if err := c.s.post(ctx, c.s.baseURL+"/v1/messages", header, body, &resp); err != nil {
		return reply{}, err
	}
	var r reply
	var texts []string
	for _, block := range resp.Content {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(block, &b) != nil {
			continue
		}
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_use":
			r.calls = append(r.calls, block)
		}
	}
	c.messages = append(c.messages, map[string]any{"role": "assistant", "content": resp.Content})
	r.text = strings.Join(texts, "\n")
	return r, nil
}

func (c *anthropicChat) answer(results []any) {
	c.messages = append(c.messages, map[string]any{"role": "user", "content": results})
}

// geminiChat speaks Gemini's generateContent
// (POST {base}/v1beta/models/{model}:generateContent).
type geminiChat struct {
	s        *settings
	tools    []any
	contents []any
}

func (c *geminiChat) send(ctx context.Context) (reply, error) {
	body := map[string]any{"contents": c.contents}
	if len(c.tools) > 0 {
		body["tools"] = []any{map[string]any{"functionDeclarations": c.tools}}
	}
	header := map[string]string{}
	if c.s.apiKey != "" {
		header["x-goog-api-key"] = c.s.apiKey
	}
	endpoint := c.s.baseURL + "/v1beta/models/" + url.PathEscape(c.s.model) + ":generateContent"
	var resp struct {
		Candidates []struct {
			Content json.RawMessage `json:"content"`
		} `json:"candidates"`
	}
	if err := c.s.post(ctx, endpoint, header, body, &resp); err != nil {
		return reply{}, err
	}
	if len(resp.Candidates) == 0 || len(resp.Candidates[0].Content) == 0 {
		return reply{}, errors.New("agent: gemini: a reply without a candidate (blocked?)")
	}
	var content struct {
		Parts []json.RawMessage `json:"parts"`
	}
	if err := json.Unmarshal(resp.Candidates[0].Content, &content); err != nil {
		return reply{}, fmt.Errorf("agent: gemini: a candidate of an unknown shape: %v", err)
	}
	var r reply
	var texts []string
	for _, part := range content.Parts {
		var p struct {
			Text         string          `json:"text"`
			FunctionCall json.RawMessage `json:"functionCall"`
		}
		if json.Unmarshal(part, &p) != nil {
			continue
		}
		if p.FunctionCall != nil {
			r.calls = append(r.calls, part)
		} else if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	c.contents = append(c.contents, resp.Candidates[0].Content)
	r.text = strings.Join(texts, "\n")
	return r, nil
}

func (c *geminiChat) answer(results []any) {
	c.contents = append(c.contents, map[string]any{"role": "user", "parts": results})
}
