package host

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// Tool parameters mirrored into HTTP headers (SEP-2243). A tool's input
// schema may mark a top-level property with "x-mcp-header": NAME; a call
// over HTTP then carries the argument's value as the header Mcp-Param-NAME
// as well, so that gateways can route on it without parsing the body.
//
// go-sdk leaves out tools with malformed marks when it lists them, and
// mirrors the parameters itself, but only for a tool it still holds in its
// list cache (a server that sends ttlMs 0 is not cached): mcphost adds the
// headers go-sdk did not (transports.WithRequestHeaders never replaces a
// header the request has).

const paramHeaderPrefix = "Mcp-Param-"

// paramHeader is one mirrored property.
type paramHeader struct {
	property string // the argument's name
	header   string // the header's name, Mcp-Param- included
}

// toolParamHeaders reads a tool's valid x-mcp-header marks: a string mark
// of HTTP token characters, unique without case, on a string, integer or
// boolean property. (A tool with an invalid one never gets this far.)
func toolParamHeaders(schema any) []paramHeader {
	s, ok := schemaObject(schema)
	if !ok {
		return nil
	}
	props, _ := s["properties"].(map[string]any)
	var out []paramHeader
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, _ := props[name].(map[string]any)
		h, _ := p["x-mcp-header"].(string)
		t, _ := p["type"].(string)
		if !config.ValidHeaderName(h) || seen[strings.ToLower(h)] || (t != "string" && t != "integer" && t != "boolean") {
			continue
		}
		seen[strings.ToLower(h)] = true
		out = append(out, paramHeader{property: name, header: paramHeaderPrefix + h})
	}
	return out
}

// paramHeaderValues builds the headers of one call: a null or absent
// argument sends none; a value that is not plain printable ASCII, or that
// starts or ends with white space, is sent Base64-encoded as =?base64?...?=.
func paramHeaderValues(params []paramHeader, args map[string]any) http.Header {
	h := http.Header{}
	for _, p := range params {
		v, ok := args[p.property]
		if !ok || v == nil {
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case bool:
			s = strconv.FormatBool(x)
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			data, err := json.Marshal(x)
			if err != nil {
				continue
			}
			s = string(data)
		}
		h[p.header] = []string{encodeHeaderValue(s)}
	}
	return h
}

func encodeHeaderValue(s string) string {
	plain := s == strings.TrimSpace(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

func schemaObject(schema any) (map[string]any, bool) {
	if m, ok := schema.(map[string]any); ok {
		return m, true
	}
	if schema == nil {
		return nil, false
	}
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	return m, json.Unmarshal(data, &m) == nil
}
