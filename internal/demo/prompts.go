package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The summarize prompt, and the completions of its topic and of note names.

// Topics are the completions offered for the topic argument of summarize.
var Topics = []string{
	"MCP authorization",
	"MCP prompts",
	"MCP resources",
	"MCP tools",
	"Wasm plugins",
	"gateway mode",
	"policy stages",
	"progress notifications",
	"result truncation",
	"tool naming",
}

func (s *server) addPrompts() {
	s.srv.AddPrompt(&mcp.Prompt{
		Name:        "summarize",
		Title:       "Summarize a topic",
		Description: "Asks the model for a short summary of a topic.",
		Arguments: []*mcp.PromptArgument{
			{Name: "topic", Title: "Topic", Description: "what to summarize", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		topic := strings.TrimSpace(req.Params.Arguments["topic"])
		if topic == "" {
			return nil, fmt.Errorf("summarize: the topic argument is required")
		}
		return &mcp.GetPromptResult{
			Description: "Summary of " + topic,
			Messages: []*mcp.PromptMessage{{
				Role: "user",
				Content: &mcp.TextContent{Text: "Summarize what you know about " + topic +
					" in at most five bullet points, most important first."},
			}},
		}, nil
	})
}

// complete offers topics for summarize and note names for the notes
// template, matching case-insensitively by prefix.
func (s *server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var candidates []string
	ref, arg := req.Params.Ref, req.Params.Argument
	switch {
	case ref.Type == "ref/prompt" && ref.Name == "summarize" && arg.Name == "topic":
		candidates = Topics
	case ref.Type == "ref/resource" && ref.URI == NotesURIPrefix+"{name}" && arg.Name == "name":
		candidates = s.noteNames()
	}
	values := []string{} // never null on the wire
	prefix := strings.ToLower(arg.Value)
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), prefix) {
			values = append(values, c)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
