package demo

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The notebook: the notes, writing and deleting them, reading them as resources.

// NotesURIPrefix is the URI prefix of the notes resources.
const NotesURIPrefix = "demo://notes/"

var seedNotes = map[string]string{
	"welcome": "Welcome to the mcphost demo.\nTry write_note and delete_note, then list the resources again.\n",
	"todo":    "- read the user guide\n- write a policy plugin\n- run mcphost serve\n",
}

// seedNoteNames fixes the order in which seed notes are added, so that the
// resource list is the same on every run.
var seedNoteNames = []string{"todo", "welcome"}

type noteArgs struct {
	Name string `json:"name" jsonschema:"the note's name: letters, digits, '_' and '-', at most 64"`
}

type writeNoteArgs struct {
	Name string `json:"name" jsonschema:"the note's name: letters, digits, '_' and '-', at most 64"`
	Text string `json:"text" jsonschema:"the note's text"`
}

// validNoteName keeps note names usable in a URI path segment without
// escaping.
func validNoteName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// putNoteLocked stores a note and lists it as a resource. The caller holds
// s.mu, so that the resource list never disagrees with the notes; the SDK
// never calls our handlers with its own lock held, so the order of the two
// locks (s.mu, then the SDK's) is fixed.
func (s *server) putNoteLocked(name, text string) {
	s.notes[name] = text
	s.srv.AddResource(&mcp.Resource{
		URI:         NotesURIPrefix + name,
		Name:        "note-" + name,
		Title:       "Note " + name,
		Description: "A note in the demo's in-memory notebook.",
		MIMEType:    "text/plain",
	}, s.readNote)
}

func (s *server) writeNote(_ context.Context, _ *mcp.CallToolRequest, in writeNoteArgs) (*mcp.CallToolResult, any, error) {
	if !validNoteName(in.Name) {
		return errorResult("invalid note name %q: use letters, digits, '_' and '-' (at most 64)", in.Name), nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, exists := s.notes[in.Name]
	switch {
	case exists && old == in.Text:
		return textResult("note %q already has this text", in.Name), nil, nil
	case exists:
		return errorResult("note %q already exists with different text; delete it first", in.Name), nil, nil
	}
	s.putNoteLocked(in.Name, in.Text)
	return textResult("wrote note %q (%d bytes), readable as %s%s", in.Name, len(in.Text), NotesURIPrefix, in.Name), nil, nil
}

func (s *server) deleteNote(_ context.Context, _ *mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.notes[in.Name]; !ok {
		return errorResult("no note named %q", in.Name), nil, nil
	}
	delete(s.notes, in.Name)
	s.srv.RemoveResources(NotesURIPrefix + in.Name)
	return textResult("deleted note %q", in.Name), nil, nil
}

func (s *server) noteNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.notes))
	for n := range s.notes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// readNote serves both the listed note resources and the template, so a
// client that builds the URI itself gets the same answer.
func (s *server) readNote(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := strings.CutPrefix(uri, NotesURIPrefix)
	s.mu.Lock()
	text, found := s.notes[name]
	s.mu.Unlock()
	if !ok || !found {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}
