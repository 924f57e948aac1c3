package transformresult_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/transformresult"
)

func init() {
	pdk.Describe("redact-emails", "1.0.0")
	transformresult.Handle(redactEmails)
}

var email = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)

// redactEmails works on decoded strings, not raw bytes: an escape such as
// \u0040 could hide an address from a byte search, and a match could cut
// an escape in half and break the JSON. Every string is searched, because
// structuredContent repeats what the text content says.
func redactEmails(req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
	dec := json.NewDecoder(bytes.NewReader(req.Result))
	dec.UseNumber() // numbers go back out digit for digit
	var result any
	if err := dec.Decode(&result); err != nil {
		return nil, fmt.Errorf("result of %s is not JSON: %v", req.Name, err)
	}
	n := 0
	result = redact(result, pdk.ConfigOr("replacement", "[redacted email]"), &n)
	if n == 0 {
		return &abi.TransformResultResponse{Result: req.Result}, nil // untouched, byte for byte
	}
	out, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	pdk.Logf(abi.LogInfo, "redacted %d address(es) from %s", n, req.Name)
	return &abi.TransformResultResponse{Result: out}, nil
}

func redact(v any, with string, n *int) any {
	switch v := v.(type) {
	case string:
		return email.ReplaceAllStringFunc(v, func(string) string { *n++; return with })
	case []any:
		for i := range v {
			v[i] = redact(v[i], with, n)
		}
	case map[string]any:
		for k := range v {
			v[k] = redact(v[k], with, n)
		}
	}
	return v
}

// Addresses go from every part of the result; a clean result passes on byte for byte.
func ExampleHandle() {
	mock := &pdk.Mock{Config: map[string]string{"replacement": "[email]"}}
	defer pdk.UseMock(mock)()

	for _, result := range []string{
		`{"content":[{"type":"text","text":"contact: alice@example.com"}],"structuredContent":{"owner":"alice@example.com","id":12345678901234567890},"isError":false}`,
		`{"content":[{"type":"text","text":"no contact given"}],"isError":false}`,
	} {
		req := abi.TransformResultRequest{Server: "web", Tool: "fetch", Name: "web_fetch", Result: json.RawMessage(result)}
		var resp abi.TransformResultResponse
		if err := pdk.CallJSON(abi.HookTransformResult, req, &resp); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(resp.Result))
	}
	for _, l := range mock.Logs() {
		fmt.Println("log:", l.Message)
	}
	// Output:
	// {"content":[{"text":"contact: [email]","type":"text"}],"isError":false,"structuredContent":{"id":12345678901234567890,"owner":"[email]"}}
	// {"content":[{"type":"text","text":"no contact given"}],"isError":false}
	// log: redacted 2 address(es) from web_fetch
}
