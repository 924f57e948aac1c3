package wire

import (
	"encoding/base64"
	"strconv"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Every field of the documents in package abi is handled here: a test fills
// every field of every type by reflection and compares with encoding/json,
// so a field added to package abi without a line here fails it.

// DecodePolicyRequest decodes the input of the policy hook.
func DecodePolicyRequest(b []byte) (*abi.PolicyRequest, error) {
	r := new(abi.PolicyRequest)
	return r, document(b, func(d *decoder) error {
		return d.object(func(key string) error {
			switch key {
			case "server":
				return d.str(&r.Server)
			case "tool":
				return d.str(&r.Tool)
			case "name":
				return d.str(&r.Name)
			case "arguments":
				return d.anyMap(&r.Arguments)
			case "annotations":
				return d.annotations(&r.Annotations)
			case "meta":
				return d.anyMap(&r.Meta)
			case "caller":
				return d.caller(&r.Caller)
			case "pin":
				return d.str(&r.Pin)
			}
			return d.skip()
		})
	})
}

func (d *decoder) annotations(p **abi.ToolAnnotations) error {
	if d.null() {
		*p = nil
		return nil
	}
	if *p == nil {
		*p = new(abi.ToolAnnotations) // a repeated key fills the same struct, as in encoding/json
	}
	a := *p
	return d.object(func(key string) error {
		switch key {
		case "title":
			return d.str(&a.Title)
		case "readOnlyHint":
			return d.boolean(&a.ReadOnlyHint)
		case "destructiveHint":
			return d.boolPtr(&a.DestructiveHint)
		case "idempotentHint":
			return d.boolean(&a.IdempotentHint)
		case "openWorldHint":
			return d.boolPtr(&a.OpenWorldHint)
		}
		return d.skip()
	})
}

func (d *decoder) caller(p **abi.Caller) error {
	if d.null() {
		*p = nil
		return nil
	}
	if *p == nil {
		*p = new(abi.Caller)
	}
	c := *p
	return d.object(func(key string) error {
		switch key {
		case "kind":
			return d.str(&c.Kind)
		case "id":
			return d.str(&c.ID)
		case "session":
			return d.str(&c.Session)
		case "client_id":
			return d.str(&c.ClientID)
		case "scopes":
			if d.null() {
				c.Scopes = nil
				return nil
			}
			c.Scopes = []string{}
			return d.array(func() error {
				var sc string
				if err := d.str(&sc); err != nil {
					return err
				}
				c.Scopes = append(c.Scopes, sc)
				return nil
			})
		}
		return d.skip()
	})
}

// DecodeFilterToolsRequest decodes the input of the filter_tools hook.
func DecodeFilterToolsRequest(b []byte) (*abi.FilterToolsRequest, error) {
	r := new(abi.FilterToolsRequest)
	return r, document(b, func(d *decoder) error {
		return d.object(func(key string) error {
			switch key {
			case "server":
				return d.str(&r.Server)
			case "tools":
				if d.null() {
					r.Tools = nil
					return nil
				}
				r.Tools = []abi.ToolInfo{}
				return d.array(func() error {
					var t abi.ToolInfo
					err := d.toolInfo(&t)
					r.Tools = append(r.Tools, t)
					return err
				})
			}
			return d.skip()
		})
	})
}

func (d *decoder) toolInfo(t *abi.ToolInfo) error {
	return d.object(func(key string) error {
		switch key {
		case "name":
			return d.str(&t.Name)
		case "title":
			return d.str(&t.Title)
		case "description":
			return d.str(&t.Description)
		case "annotations":
			return d.annotations(&t.Annotations)
		case "input_schema":
			raw, err := d.raw()
			t.InputSchema = raw
			return err
		case "pin":
			return d.str(&t.Pin)
		}
		return d.skip()
	})
}

// DecodeMapNamesRequest decodes the input of the map_names hook.
func DecodeMapNamesRequest(b []byte) (*abi.MapNamesRequest, error) {
	r := new(abi.MapNamesRequest)
	return r, document(b, func(d *decoder) error {
		return d.object(func(key string) error {
			switch key {
			case "tools":
				if d.null() {
					r.Tools = nil
					return nil
				}
				r.Tools = []abi.NameKey{}
				return d.array(func() error {
					var k abi.NameKey
					err := d.object(func(key string) error {
						switch key {
						case "server":
							return d.str(&k.Server)
						case "tool":
							return d.str(&k.Tool)
						case "title":
							return d.str(&k.Title)
						}
						return d.skip()
					})
					r.Tools = append(r.Tools, k)
					return err
				})
			case "constraints":
				c := &r.Constraints
				return d.object(func(key string) error {
					switch key {
					case "max_length":
						return d.integer(&c.MaxLength)
					case "pattern":
						return d.str(&c.Pattern)
					}
					return d.skip()
				})
			}
			return d.skip()
		})
	})
}

// DecodeTransformResultRequest decodes the input of the transform_result
// hook. The result is checked but not decoded: it stays raw bytes.
func DecodeTransformResultRequest(b []byte) (*abi.TransformResultRequest, error) {
	r := new(abi.TransformResultRequest)
	return r, document(b, func(d *decoder) error {
		return d.object(func(key string) error {
			switch key {
			case "server":
				return d.str(&r.Server)
			case "tool":
				return d.str(&r.Tool)
			case "name":
				return d.str(&r.Name)
			case "arguments":
				return d.anyMap(&r.Arguments)
			case "result":
				raw, err := d.raw()
				r.Result = raw
				return err
			}
			return d.skip()
		})
	})
}

// DecodeAuthRequest decodes the input of the auth hook.
func DecodeAuthRequest(b []byte) (*abi.AuthRequest, error) {
	r := new(abi.AuthRequest)
	return r, document(b, func(d *decoder) error {
		return d.object(func(key string) error {
			switch key {
			case "server":
				return d.str(&r.Server)
			case "url":
				return d.str(&r.URL)
			case "challenge":
				if d.null() {
					r.Challenge = nil
					return nil
				}
				if r.Challenge == nil {
					r.Challenge = new(abi.Challenge)
				}
				c := r.Challenge
				return d.object(func(key string) error {
					switch key {
					case "status":
						return d.integer(&c.Status)
					case "www_authenticate":
						return d.str(&c.WWWAuthenticate)
					}
					return d.skip()
				})
			}
			return d.skip()
		})
	})
}

// DecodeHTTPResponse decodes what mcphost_http returns.
func DecodeHTTPResponse(b []byte) (*abi.HTTPResponse, error) {
	r := new(abi.HTTPResponse)
	return r, document(b, func(d *decoder) error {
		return d.object(func(key string) error {
			switch key {
			case "status":
				return d.integer(&r.Status)
			case "headers":
				return d.stringMap(&r.Headers)
			case "body":
				return d.bytes(&r.Body)
			case "error":
				return d.str(&r.Error)
			}
			return d.skip()
		})
	})
}

// bytes reads a base64 string, as encoding/json does for []byte.
func (d *decoder) bytes(p *[]byte) error {
	if d.null() {
		*p = nil
		return nil
	}
	var s string
	if err := d.str(&s); err != nil {
		return err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return d.errorf("bad base64: %v", err)
	}
	*p = b
	return nil
}

// EncodeDescription encodes the output of mcphost_describe.
func EncodeDescription(v *abi.Description) ([]byte, error) {
	b := append(make([]byte, 0, 128), `{"abi":`...)
	b = strconv.AppendInt(b, int64(v.ABI), 10)
	b = append(b, `,"name":`...)
	b = appendString(b, v.Name)
	if v.Version != "" {
		b = append(b, `,"version":`...)
		b = appendString(b, v.Version)
	}
	b = append(b, `,"hooks":`...)
	if v.Hooks == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, h := range v.Hooks {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(h))
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// EncodePolicyDecision encodes the output of the policy hook.
func EncodePolicyDecision(v *abi.PolicyDecision) ([]byte, error) {
	b := append(make([]byte, 0, 128), `{"decision":`...)
	b = appendString(b, string(v.Decision))
	if v.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, v.Reason)
	}
	if len(v.Arguments) > 0 {
		b = append(b, `,"arguments":`...)
		var err error
		if b, err = appendAnyMap(b, v.Arguments); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// EncodeFilterToolsResponse encodes the output of the filter_tools hook.
func EncodeFilterToolsResponse(v *abi.FilterToolsResponse) ([]byte, error) {
	b := append(make([]byte, 0, 64), `{"tools":`...)
	b = appendStrings(b, v.Tools)
	return append(b, '}'), nil
}

// EncodeMapNamesResponse encodes the output of the map_names hook.
func EncodeMapNamesResponse(v *abi.MapNamesResponse) ([]byte, error) {
	b := append(make([]byte, 0, 64), `{"names":`...)
	b = appendStrings(b, v.Names)
	return append(b, '}'), nil
}

// EncodeTransformResultResponse encodes the output of the transform_result
// hook.
func EncodeTransformResultResponse(v *abi.TransformResultResponse) ([]byte, error) {
	b := append(make([]byte, 0, len(v.Result)+12), `{"result":`...)
	b = appendRaw(b, v.Result)
	return append(b, '}'), nil
}

// EncodeAuthResponse encodes the output of the auth hook.
func EncodeAuthResponse(v *abi.AuthResponse) ([]byte, error) {
	b := append(make([]byte, 0, 128), `{"headers":`...)
	b = appendStringMap(b, v.Headers)
	if v.ExpiresIn != 0 {
		b = append(b, `,"expires_in":`...)
		b = strconv.AppendInt(b, int64(v.ExpiresIn), 10)
	}
	return append(b, '}'), nil
}

// EncodeHTTPRequest encodes the input of mcphost_http.
func EncodeHTTPRequest(v *abi.HTTPRequest) ([]byte, error) {
	b := append(make([]byte, 0, 128), `{"method":`...)
	b = appendString(b, v.Method)
	b = append(b, `,"url":`...)
	b = appendString(b, v.URL)
	if len(v.Headers) > 0 {
		b = append(b, `,"headers":`...)
		b = appendStringMap(b, v.Headers)
	}
	if len(v.Body) > 0 {
		b = append(b, `,"body":"`...)
		b = base64.StdEncoding.AppendEncode(b, v.Body)
		b = append(b, '"')
	}
	return append(b, '}'), nil
}
