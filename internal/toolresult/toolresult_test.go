package toolresult

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var seeds = []string{
	`{"content":[{"type":"text","text":"hi"}]}`,
	`{"content":[{"type":"text","text":"a\nb\u00e9","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":1}}]}`,
	`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}],"isError":true,"_meta":{"k":1}}`,
	`{"content":[{"type":"audio","data":"aGk=","mimeType":"audio/wav"}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"x"}}],"structuredContent":{"a":[1,2]}}`,
	`{"content":[{"type":"resource_link","uri":"file:///a","name":"a","size":3,"icons":[{"src":"x"}]}]}`,
	`{"content":[{"type":"tool_use","id":"1","name":"n","input":{"a":[1,{"b":null}]}}]}`,
	`{"content":[{"type":"tool_result","toolUseId":"1","content":[{"type":"text","text":"x"}],"structuredContent":3,"isError":true}]}`,
	`{"content":[{"type":"tool_result","content":[{"type":"tool_use"}]}]}`,
	`{"content":[null]}`,
	`{"content":[{"type":"video"}]}`,
	`{"content":[{"type":"image","data":"not base64!"}]}`,
	`{"Content":[]}`,
	`{"content":{"type":"text","text":"one"}}`,
	`{"content":[],"requestState":"s","unknown":1}`,
	`{"content":[],"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{}}}}`,
	`{"content":[],"resultType":"complete"}`,
	`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"content":[{"text":"x","type":"text"}],"resultType":"complete"}`,
	`{"content":[],"resultType":"other"}`,
	`{"content":[],"structuredContent":1e400}`,
	`{"content":[{"type":"tool_use","input":{"a":1e400}}]}`,
	`{"content":[{"type":"tool_result","structuredContent":-1e999}]}`,
	`{"content":[],"structuredContent":{"a":"1e400","b":[1.5e300,-0,2E-5]}}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe\"}]}",
	`{"content":[],"structuredContent":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
}

func sdk(data []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	err := res.UnmarshalJSON(data)
	return &res, err
}

// What the check accepts, go-sdk decodes.
func FuzzCheck(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if !json.Valid(data) || !Check(data) {
			return
		}
		if _, err := sdk(data); err != nil {
			t.Fatalf("Check accepted %s; go-sdk: %v", s, err)
		}
	})
}

// What Decode decodes, go-sdk decodes to the same result.
func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if !json.Valid(data) {
			return
		}
		got, ok := Decode(data)
		if !ok {
			return
		}
		want, err := sdk(data)
		if err != nil {
			t.Fatalf("Decode took %s; go-sdk: %v", s, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\nDecode %#v\ngo-sdk %#v", s, got, want)
		}
	})
}

func TestDecodeTakesTheCommonResults(t *testing.T) {
	for _, s := range append(seeds[:8:8], seeds[16], seeds[17]) { // every content type, and "complete"
		if _, ok := Decode([]byte(s)); !ok {
			t.Errorf("Decode left %s to go-sdk", s)
		}
		if !Check([]byte(s)) {
			t.Errorf("Check left %s to go-sdk", s)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	data := []byte(`{"content":[{"type":"text","text":"hello, here is a normal tool result"}]}`)
	b.Run("go-sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sdk(data)
		}
	})
	b.Run("toolresult", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Decode(data)
		}
	})
}
