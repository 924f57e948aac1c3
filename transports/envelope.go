package transports

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// envelopeScanner reads the top level of one JSON object incrementally and
// remembers only what a JSON-RPC envelope needs: the raw "id" value and which
// of "method", "result" and "error" are present. It never buffers member
// values (other than a small id), so it can walk an oversized message that we
// refuse to hold in memory and still find out which call it answered: that
// lets a too-large response fail one call instead of the whole session.
type envelopeScanner struct {
	state int
	depth int  // nesting depth inside the value being skipped
	inStr bool // inside a string of a skipped value
	esc   bool // previous byte was a backslash (inside a string)

	key     []byte // raw bytes of the current top-level key (without quotes)
	keyLong bool   // key exceeded maxKeyLen: it cannot be one we care about
	capture bool   // the current value is the "id" value: keep its bytes
	val     []byte // raw bytes of the current "id" value
	valLong bool

	id                           json.RawMessage
	hasMethod, hasResult, hasErr bool
}

const (
	maxKeyLen = 64
	maxIDLen  = 256
)

const (
	esBegin      = iota // before the opening '{'
	esKeyOrEnd          // after '{': a key or '}'
	esKey               // inside a key string
	esKeyAfter          // after ',': a key is required
	esColon             // after a key: ':'
	esValue             // after ':': start of a value
	esInValue           // inside a nested object/array/string value
	esScalar            // inside a number or literal
	esCommaOrEnd        // after a value: ',' or '}'
	esDone              // after the closing '}'
	esBad               // not a JSON object
)

func isJSONSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// feed consumes the next bytes of the message.
func (s *envelopeScanner) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch s.state {
		case esBegin:
			if isJSONSpace(b) {
				continue
			}
			if b == '{' {
				s.state = esKeyOrEnd
			} else {
				s.state = esBad
			}
		case esKeyOrEnd, esKeyAfter:
			if isJSONSpace(b) {
				continue
			}
			switch {
			case b == '"':
				s.state, s.key, s.keyLong, s.esc = esKey, s.key[:0], false, false
			case b == '}' && s.state == esKeyOrEnd:
				s.state = esDone
			default:
				s.state = esBad
			}
		case esKey:
			if !s.esc && b == '"' {
				s.state = esColon
				continue
			}
			if b < 0x20 {
				s.state = esBad
				continue
			}
			s.esc = !s.esc && b == '\\'
			if len(s.key) < maxKeyLen {
				s.key = append(s.key, b)
			} else {
				s.keyLong = true
			}
		case esColon:
			if isJSONSpace(b) {
				continue
			}
			if b != ':' {
				s.state = esBad
				continue
			}
			s.state = esValue
		case esValue:
			if isJSONSpace(b) {
				continue
			}
			s.startValue(b)
		case esInValue:
			if s.capture {
				s.keep(b)
			}
			if s.inStr {
				switch {
				case s.esc:
					s.esc = false
				case b == '\\':
					s.esc = true
				case b == '"':
					s.inStr = false
					if s.depth == 0 {
						s.endValue()
					}
				}
				continue
			}
			switch b {
			case '"':
				s.inStr = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
				if s.depth == 0 {
					s.endValue()
				}
			}
		case esScalar:
			if isJSONSpace(b) || b == ',' || b == '}' {
				s.endValue()
				i-- // the delimiter belongs to the next state
				continue
			}
			if s.capture {
				s.keep(b)
			}
		case esCommaOrEnd:
			if isJSONSpace(b) {
				continue
			}
			switch b {
			case ',':
				s.state = esKeyAfter
			case '}':
				s.state = esDone
			default:
				s.state = esBad
			}
		case esDone:
			if !isJSONSpace(b) {
				s.state = esBad
			}
		case esBad:
			return
		}
	}
}

// startValue begins the value of the current key with its first byte b.
func (s *envelopeScanner) startValue(b byte) {
	name, known := s.keyName()
	if known {
		switch name {
		case "method":
			s.hasMethod = true
		case "result":
			s.hasResult = true
		case "error":
			s.hasErr = true
		}
	}
	s.capture = known && name == "id"
	s.val, s.valLong = s.val[:0], false
	if s.capture {
		s.keep(b)
	}
	switch b {
	case '"':
		s.state, s.inStr, s.esc, s.depth = esInValue, true, false, 0
	case '{', '[':
		s.state, s.inStr, s.esc, s.depth = esInValue, false, false, 1
	case '}', ']', ',', ':':
		s.state = esBad
	default:
		s.state = esScalar
	}
}

func (s *envelopeScanner) keep(b byte) {
	if len(s.val) < maxIDLen {
		s.val = append(s.val, b)
	} else {
		s.valLong = true
	}
}

func (s *envelopeScanner) endValue() {
	if s.capture {
		if s.valLong {
			s.id = nil
		} else {
			s.id = append(json.RawMessage(nil), s.val...)
		}
		s.capture = false
	}
	s.state = esCommaOrEnd
}

// keyName decodes the current key. known is false for keys too long to matter.
func (s *envelopeScanner) keyName() (string, bool) {
	if s.keyLong {
		return "", false
	}
	if bytes.IndexByte(s.key, '\\') < 0 {
		return string(s.key), true
	}
	var name string
	quoted := make([]byte, 0, len(s.key)+2)
	quoted = append(append(append(quoted, '"'), s.key...), '"')
	if json.Unmarshal(quoted, &name) != nil {
		return "", false
	}
	return name, true
}

// responseID reports the id of the message if the scan saw a complete,
// well-formed JSON-RPC response (an id, no method, a result or an error).
func (s *envelopeScanner) responseID() (jsonrpc.ID, bool) {
	if s.state != esDone || s.id == nil || s.hasMethod || !(s.hasResult || s.hasErr) {
		return jsonrpc.ID{}, false
	}
	var v any
	if json.Unmarshal(s.id, &v) != nil {
		return jsonrpc.ID{}, false
	}
	if f, ok := v.(float64); ok && f != float64(int64(f)) {
		return jsonrpc.ID{}, false // jsonrpc.MakeID would truncate it: not one of ours
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil || !id.IsValid() {
		return jsonrpc.ID{}, false
	}
	return id, true
}
