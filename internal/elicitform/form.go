// Package elicitform turns an MCP elicitation request (a flat JSON Schema of
// primitive properties) into answers: the schema's defaults, or a small form
// asked on a terminal with the defaults pre-filled.
package elicitform

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Property is one field of a form, as read from the requested schema.
type Property struct {
	Name        string
	Type        string // string, number, integer, boolean
	Title       string
	Description string
	Default     any
	Enum        []string
	Required    bool
}

type wireSchema struct {
	Properties map[string]struct {
		Type        string `json:"type"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Default     any    `json:"default"`
		Enum        []any  `json:"enum"`
		OneOf       []struct {
			Const any `json:"const"`
		} `json:"oneOf"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// Parse reads the properties of a requested schema, in a stable order:
// required fields first, then by name. Whatever shape the schema arrives in
// (a map, raw JSON, a typed schema), it is read through its JSON form.
func Parse(schema any) ([]Property, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("elicitation: schema: %w", err)
	}
	var ws wireSchema
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("elicitation: schema is not an object schema: %w", err)
	}
	props := make([]Property, 0, len(ws.Properties))
	for name, p := range ws.Properties {
		prop := Property{Name: name, Type: p.Type, Title: p.Title, Description: p.Description,
			Default: p.Default, Required: slices.Contains(ws.Required, name)}
		for _, e := range p.Enum {
			prop.Enum = append(prop.Enum, fmt.Sprint(e))
		}
		for _, o := range p.OneOf {
			if o.Const != nil {
				prop.Enum = append(prop.Enum, fmt.Sprint(o.Const))
			}
		}
		if prop.Type == "" {
			prop.Type = "string"
		}
		props = append(props, prop)
	}
	sort.Slice(props, func(i, j int) bool {
		if props[i].Required != props[j].Required {
			return props[i].Required
		}
		return props[i].Name < props[j].Name
	})
	return props, nil
}

// Defaults returns the content a client sends when it accepts without asking:
// every property that has a default, set to it (SEP-1034).
func Defaults(schema any) (map[string]any, error) {
	props, err := Parse(schema)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, p := range props {
		if p.Default != nil {
			out[p.Name] = p.Default
		}
	}
	return out, nil
}

// ErrDeclined is returned by Ask when the person declines.
var ErrDeclined = errors.New("elicitation: declined")

// Ask shows message and asks for each property on w, reading answers from r.
// An empty answer keeps the default; "!decline" declines and "!cancel"
// cancels. Answers are converted to the property's type and checked against
// its enum; a wrong answer is asked again (up to three times).
func Ask(r io.Reader, w io.Writer, message string, schema any) (*mcp.ElicitResult, error) {
	props, err := Parse(schema)
	if err != nil {
		return nil, err
	}
	in := bufio.NewReader(r)
	fmt.Fprintf(w, "\nThe server asks: %s\n(enter keeps the [default]; type !decline or !cancel to refuse)\n", message)
	content := map[string]any{}
	for _, p := range props {
		var value any
		for attempt := 0; ; attempt++ {
			fmt.Fprint(w, prompt(p))
			line, rerr := in.ReadString('\n')
			line = strings.TrimSpace(line)
			if rerr != nil && line == "" {
				// Input ended: nobody is answering, so nothing is accepted.
				fmt.Fprintln(w)
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			switch line {
			case "!decline":
				return &mcp.ElicitResult{Action: "decline"}, nil
			case "!cancel":
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			v, cerr := convert(p, line)
			if cerr == nil {
				value = v
				break
			}
			if rerr != nil || attempt == 2 {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			fmt.Fprintf(w, "  %v\n", cerr)
		}
		if value != nil {
			content[p.Name] = value
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func prompt(p Property) string {
	label := p.Name
	if p.Title != "" {
		label = p.Title
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %s (%s", label, p.Type)
	if p.Required {
		b.WriteString(", required")
	}
	b.WriteString(")")
	if len(p.Enum) > 0 {
		fmt.Fprintf(&b, " one of %s", strings.Join(p.Enum, "|"))
	}
	if p.Description != "" {
		fmt.Fprintf(&b, " — %s", p.Description)
	}
	if p.Default != nil {
		fmt.Fprintf(&b, " [%v]", p.Default)
	}
	b.WriteString(": ")
	return b.String()
}

// convert turns an answer into the property's type. An empty answer takes
// the default, or nothing for an optional field.
func convert(p Property, answer string) (any, error) {
	if answer == "" {
		if p.Default != nil {
			return p.Default, nil
		}
		if p.Required {
			return nil, fmt.Errorf("%s is required", p.Name)
		}
		return nil, nil
	}
	if len(p.Enum) > 0 && !slices.Contains(p.Enum, answer) {
		return nil, fmt.Errorf("choose one of %s", strings.Join(p.Enum, ", "))
	}
	switch p.Type {
	case "boolean":
		b, err := strconv.ParseBool(answer)
		if err != nil {
			switch strings.ToLower(answer) {
			case "y", "yes":
				return true, nil
			case "n", "no":
				return false, nil
			}
			return nil, fmt.Errorf("answer yes or no")
		}
		return b, nil
	case "integer":
		n, err := strconv.ParseInt(answer, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("enter a whole number")
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(answer, 64)
		if err != nil {
			return nil, fmt.Errorf("enter a number")
		}
		return f, nil
	}
	return answer, nil
}
