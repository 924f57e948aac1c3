package providers_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/providers"
)

// exampleTools stands for h.Tools() of a started host.Host.
func exampleTools() []host.Tool {
	return []host.Tool{{
		Name:        "mcp__files__read_file",
		Description: "Reads a text file.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path": map[string]any{"type": "string"},
				"head": map[string]any{"type": "integer", "description": "Only the first N lines."},
			},
			"required": []any{"path"},
		},
	}}
}

// exampleResult stands for what host.Host.CallTool returned.
var exampleResult = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "line 1\nline 2"}}}

func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Println(err)
	}
}

// The Chat Completions API: tools in strict mode, where an optional
// property becomes nullable and the null the model sends for it is taken
// out before the call.
func ExampleConvert_openai() {
	ts, err := providers.Convert(providers.OpenAI, exampleTools(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	printJSON(ts.Tools) // the request's "tools"

	// One element of the reply's message.tool_calls.
	call, err := ts.ParseCall([]byte(`{"id":"call_1","type":"function","function":{
		"name":"mcp__files__read_file","arguments":"{\"path\":\"notes.txt\",\"head\":null}"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(call.Tool, call.Arguments) // for h.CallTool(ctx, call.Tool, call.Arguments)
	printJSON(ts.Result(call, exampleResult, nil))
	// Output:
	// [
	//   {
	//     "type": "function",
	//     "function": {
	//       "name": "mcp__files__read_file",
	//       "description": "Reads a text file.",
	//       "parameters": {
	//         "additionalProperties": false,
	//         "properties": {
	//           "head": {
	//             "description": "Only the first N lines.",
	//             "type": [
	//               "integer",
	//               "null"
	//             ]
	//           },
	//           "path": {
	//             "type": "string"
	//           }
	//         },
	//         "required": [
	//           "path",
	//           "head"
	//         ],
	//         "type": "object"
	//       },
	//       "strict": true
	//     }
	//   }
	// ]
	// mcp__files__read_file map[path:notes.txt]
	// {
	//   "role": "tool",
	//   "tool_call_id": "call_1",
	//   "content": "line 1\nline 2"
	// }
}

// The Responses API: function tools at the top level, answered by a
// function_call_output input item.
func ExampleConvert_openaiResponses() {
	ts, err := providers.Convert(providers.OpenAIResponses, exampleTools(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tool := ts.Tools[0].(*providers.ResponsesTool)
	fmt.Println(tool.Type, tool.Name, tool.Strict)

	// An item of the reply's "output".
	call, err := ts.ParseCall([]byte(`{"type":"function_call","id":"fc_1","call_id":"call_7",
		"name":"mcp__files__read_file","arguments":"{\"path\":\"notes.txt\",\"head\":2}"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(call.Tool, call.Arguments)
	printJSON(ts.Result(call, exampleResult, nil))
	// Output:
	// function mcp__files__read_file true
	// mcp__files__read_file map[head:2 path:notes.txt]
	// {
	//   "type": "function_call_output",
	//   "call_id": "call_7",
	//   "output": "line 1\nline 2"
	// }
}

// Anthropic's Messages API: input_schema is JSON Schema, and the answer is
// a tool_result block for the next user message.
func ExampleConvert_anthropic() {
	ts, err := providers.Convert(providers.Anthropic, exampleTools(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	printJSON(ts.Tools)

	// A content block of the reply.
	call, err := ts.ParseCall([]byte(`{"type":"tool_use","id":"toolu_1","name":"mcp__files__read_file","input":{"path":"notes.txt"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(call.Tool, call.Arguments)
	printJSON(ts.Result(call, exampleResult, nil))
	// Output:
	// [
	//   {
	//     "name": "mcp__files__read_file",
	//     "description": "Reads a text file.",
	//     "input_schema": {
	//       "properties": {
	//         "head": {
	//           "description": "Only the first N lines.",
	//           "type": "integer"
	//         },
	//         "path": {
	//           "type": "string"
	//         }
	//       },
	//       "required": [
	//         "path"
	//       ],
	//       "type": "object"
	//     }
	//   }
	// ]
	// mcp__files__read_file map[path:notes.txt]
	// {
	//   "type": "tool_result",
	//   "tool_use_id": "toolu_1",
	//   "content": [
	//     {
	//       "type": "text",
	//       "text": "line 1\nline 2"
	//     }
	//   ]
	// }
}

// Gemini: function declarations in the OpenAPI subset, answered by a
// functionResponse part. Conversions that lose something are warned of.
func ExampleConvert_gemini() {
	tools := exampleTools()
	tools[0].InputSchema.(map[string]any)["properties"].(map[string]any)["encoding"] = map[string]any{
		"type": []any{"string", "null"}, "format": "charset",
	}
	ts, err := providers.Convert(providers.Gemini, tools, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	printJSON(ts.Tools) // tools[].functionDeclarations of the request
	for _, w := range ts.Warnings {
		fmt.Println("warning:", w)
	}

	// A part of the reply's candidates[0].content.parts.
	call, err := ts.ParseCall([]byte(`{"functionCall":{"name":"mcp__files__read_file","args":{"path":"notes.txt"}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	printJSON(ts.Result(call, exampleResult, nil))
	// Output:
	// [
	//   {
	//     "name": "mcp__files__read_file",
	//     "description": "Reads a text file.",
	//     "parameters": {
	//       "properties": {
	//         "encoding": {
	//           "description": "Format: \"charset\".",
	//           "nullable": true,
	//           "type": "string"
	//         },
	//         "head": {
	//           "description": "Only the first N lines.",
	//           "type": "integer"
	//         },
	//         "path": {
	//           "type": "string"
	//         }
	//       },
	//       "required": [
	//         "path"
	//       ],
	//       "type": "object"
	//     }
	//   }
	// ]
	// warning: mcp__files__read_file: /properties/encoding/format: format "charset" is not accepted by Gemini: it is told in the description
	// {
	//   "functionResponse": {
	//     "name": "mcp__files__read_file",
	//     "response": {
	//       "output": "line 1\nline 2"
	//     }
	//   }
	// }
}
