package demo

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The readme resource and the notes' resource template.

// Readme is the text of the demo://readme resource.
const Readme = `# mcphost demo server

This server is built into mcphost (` + "`mcphost demo`" + `) so that every feature of the
host can be tried without installing anything. Nothing it does leaves the process.

## Tools

| tool | arguments | what it shows |
|------|-----------|---------------|
| echo | text | the simplest call |
| add | a, b | structured output with an output schema |
| slow | duration_ms (default 1500, max 60000) | progress notifications and cancellation |
| write_note | name, text | an idempotent, non-destructive write |
| delete_note | name | a destructive tool, for confirm policies |
| big_report | kb (default 256) | an oversized result, for truncation stages |
| fetch_weather | city | an open-world tool (canned data, no network) |

## Resources

- ` + "`demo://readme`" + ` — this text
- ` + "`demo://notes/{name}`" + ` — the notes, also listed one by one

## Prompts

- ` + "`summarize`" + ` (topic, required; completions offered)
`

func (s *server) addResources() {
	s.srv.AddResource(&mcp.Resource{
		URI:         "demo://readme",
		Name:        "readme",
		Title:       "About the demo server",
		Description: "What the demo server offers and what each feature demonstrates.",
		MIMEType:    "text/markdown",
		Size:        int64(len(Readme)),
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/markdown", Text: Readme},
		}}, nil
	})
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: NotesURIPrefix + "{name}",
		Name:        "note",
		Title:       "Note by name",
		Description: "A note of the in-memory notebook; see write_note and delete_note.",
		MIMEType:    "text/plain",
	}, s.readNote)
}
