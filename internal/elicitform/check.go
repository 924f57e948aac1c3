package elicitform

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Bounds on a server's requested form: it is shown to a person, so a few
// dozen fields is already a lot.
const (
	maxElicitFields  = 64
	maxElicitChoices = 256
)

// Check holds a requested form to the specification: a flat
// object whose properties are strings (optionally of a format, or a
// single-select enum: enum, enum+enumNames, or oneOf of const/title), numbers,
// integers, booleans, or arrays of enum choices (items with enum, or anyOf of
// const/title).
func Check(wire any) (*jsonschema.Schema, error) {
	if wire == nil {
		return nil, nil
	}
	raw, err := json.Marshal(wire)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %v", err)
	}
	if err := checkKeywords(raw); err != nil {
		return nil, fmt.Errorf("requested schema%v", err)
	}
	var s *jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("requested schema: %v", err)
	}
	if s == nil {
		return nil, nil
	}
	if s.Type != "" && s.Type != "object" || len(s.Types) > 0 {
		return nil, fmt.Errorf("requested schema must be an object, not %q", s.Type)
	}
	if len(s.Properties) > maxElicitFields {
		return nil, fmt.Errorf("requested schema has %d fields, more than %d", len(s.Properties), maxElicitFields)
	}
	for name, p := range s.Properties {
		if p == nil {
			continue
		}
		if err := checkElicitField(p); err != nil {
			return nil, fmt.Errorf("requested schema field %q: %v", name, err)
		}
	}
	return s, nil
}

// The keywords a form may use, where: anything else (allOf, $ref,
// additionalProperties, nested schemas...) could describe what the
// specification keeps out of forms, and is refused rather than
// interpreted.
var (
	formKeywords   = keywords("$schema", "type", "title", "description", "properties", "required", "additionalProperties")
	fieldKeywords  = keywords("type", "title", "description", "default", "format", "minLength", "maxLength", "minimum", "maximum", "enum", "enumNames", "oneOf", "items", "minItems", "maxItems")
	itemsKeywords  = keywords("type", "enum", "anyOf")
	choiceKeywords = keywords("const", "title", "description")
)

func keywords(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// checkKeywords holds the raw form to the keywords above; its errors begin
// with where (": field \"x\": ...").
func checkKeywords(raw []byte) error {
	if string(raw) == "null" {
		return nil
	}
	var form map[string]json.RawMessage
	if err := json.Unmarshal(raw, &form); err != nil {
		return fmt.Errorf(": not an object: %v", err)
	}
	if err := only(form, formKeywords); err != nil {
		return fmt.Errorf(": %v", err)
	}
	// Schema generators (go-sdk's jsonschema.For, zod) say
	// "additionalProperties": false; a schema there could describe nested
	// fields, and answers hold only the form's fields anyway.
	if ap, ok := form["additionalProperties"]; ok && string(ap) != "false" && string(ap) != "true" {
		return fmt.Errorf(": additionalProperties may only be true or false in a form")
	}
	var props map[string]map[string]json.RawMessage
	if p, ok := form["properties"]; ok {
		if err := json.Unmarshal(p, &props); err != nil {
			return fmt.Errorf(": properties: %v", err)
		}
	}
	for name, field := range props {
		if err := only(field, fieldKeywords); err != nil {
			return fmt.Errorf(" field %q: %v", name, err)
		}
		var choices []map[string]json.RawMessage
		if o, ok := field["oneOf"]; ok {
			if err := json.Unmarshal(o, &choices); err != nil || len(choices) == 0 {
				return fmt.Errorf(" field %q: oneOf must be a non-empty list of choices", name)
			}
		}
		if it, ok := field["items"]; ok {
			var items map[string]json.RawMessage
			if err := json.Unmarshal(it, &items); err != nil {
				return fmt.Errorf(" field %q: items: %v", name, err)
			}
			if err := only(items, itemsKeywords); err != nil {
				return fmt.Errorf(" field %q items: %v", name, err)
			}
			if a, ok := items["anyOf"]; ok {
				var more []map[string]json.RawMessage
				if err := json.Unmarshal(a, &more); err != nil || len(more) == 0 {
					return fmt.Errorf(" field %q: items anyOf must be a non-empty list of choices", name)
				}
				choices = append(choices, more...)
			}
		}
		for _, c := range choices {
			if err := only(c, choiceKeywords); err != nil {
				return fmt.Errorf(" field %q choice: %v", name, err)
			}
		}
	}
	return nil
}

func only(obj map[string]json.RawMessage, allowed map[string]bool) error {
	for k := range obj {
		if !allowed[k] {
			return fmt.Errorf("keyword %q is not allowed in a form", k)
		}
	}
	return nil
}

// stringsOnly reports whether every value is a string.
func stringsOnly(values []any) bool {
	for _, v := range values {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

func checkElicitField(p *jsonschema.Schema) error {
	if len(p.Properties) > 0 || p.Items != nil && len(p.Items.Properties) > 0 {
		return fmt.Errorf("nested objects are not allowed in a form")
	}
	switch p.Type {
	case "string":
		return checkElicitString(p)
	case "number", "integer":
		if p.Minimum != nil && p.Maximum != nil && *p.Maximum < *p.Minimum {
			return fmt.Errorf("maximum %g is less than minimum %g", *p.Maximum, *p.Minimum)
		}
		return checkDefault(p, func(v any) bool { _, ok := v.(float64); return ok })
	case "boolean":
		return checkDefault(p, func(v any) bool { _, ok := v.(bool); return ok })
	case "array":
		return checkElicitChoices(p)
	default:
		return fmt.Errorf("type %q is not allowed in a form (string, number, integer, boolean or array)", p.Type)
	}
}

func checkElicitString(p *jsonschema.Schema) error {
	switch {
	case len(p.Enum) > 0:
		if len(p.Enum) > maxElicitChoices {
			return fmt.Errorf("%d choices, more than %d", len(p.Enum), maxElicitChoices)
		}
		if !stringsOnly(p.Enum) {
			return fmt.Errorf("enum choices must be strings")
		}
		if names, ok := p.Extra["enumNames"]; ok {
			list, ok := names.([]any)
			if !ok || len(list) != len(p.Enum) {
				return fmt.Errorf("enumNames must be an array as long as enum")
			}
		}
	case p.OneOf != nil:
		if err := checkTitledChoices(p.OneOf); err != nil {
			return fmt.Errorf("oneOf: %v", err)
		}
	}
	switch p.Format {
	case "", "email", "uri", "date", "date-time":
	default:
		return fmt.Errorf("format %q is not allowed in a form (email, uri, date, date-time)", p.Format)
	}
	if p.MinLength != nil && *p.MinLength < 0 || p.MaxLength != nil && *p.MaxLength < 0 {
		return fmt.Errorf("negative length bound")
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MaxLength < *p.MinLength {
		return fmt.Errorf("maxLength %d is less than minLength %d", *p.MaxLength, *p.MinLength)
	}
	return checkDefault(p, func(v any) bool { _, ok := v.(string); return ok })
}

// checkElicitChoices is a multi-select: items are an enum of strings, or an
// anyOf of const/title pairs (with or without "type": "string").
func checkElicitChoices(p *jsonschema.Schema) error {
	items := p.Items
	if items == nil {
		return fmt.Errorf("an array needs items")
	}
	if items.Type != "" && items.Type != "string" {
		return fmt.Errorf("items of type %q: a multi-select's choices are strings", items.Type)
	}
	switch {
	case len(items.Enum) > 0:
		if len(items.Enum) > maxElicitChoices {
			return fmt.Errorf("%d choices, more than %d", len(items.Enum), maxElicitChoices)
		}
		if !stringsOnly(items.Enum) {
			return fmt.Errorf("items enum choices must be strings")
		}
		return nil
	case len(items.AnyOf) > 0:
		if err := checkTitledChoices(items.AnyOf); err != nil {
			return fmt.Errorf("items anyOf: %v", err)
		}
		return nil
	default:
		return fmt.Errorf("items need enum or anyOf choices")
	}
}

func checkTitledChoices(choices []*jsonschema.Schema) error {
	if len(choices) > maxElicitChoices {
		return fmt.Errorf("%d choices, more than %d", len(choices), maxElicitChoices)
	}
	for _, c := range choices {
		if c == nil || c.Const == nil {
			return fmt.Errorf("every choice needs a const")
		}
		if v, ok := (*c.Const).(string); !ok || v == "" {
			return fmt.Errorf("a choice's const must be a non-empty string")
		}
		if c.Title == "" {
			return fmt.Errorf("every choice needs a title")
		}
	}
	return nil
}

func checkDefault(p *jsonschema.Schema, ok func(any) bool) error {
	if p.Default == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(p.Default, &v); err != nil || !ok(v) {
		return fmt.Errorf("default %s does not fit type %q", p.Default, p.Type)
	}
	return nil
}
