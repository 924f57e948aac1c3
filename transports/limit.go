package transports

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcphost/mcphost/internal/jsonscan"
)

// eventSlack is what an SSE event may carry beyond its message: field names,
// id, event name and line ends.
const eventSlack = 4096

// limitRoundTripper enforces the message size limit on HTTP response bodies
// before go-sdk reads them. A response message over the limit is replaced
// by a JSON-RPC error response for the same request id, so only that call
// fails (with an error naming max_message_bytes) and the session goes on;
// other oversized content ends the body with the same error.
type limitRoundTripper struct {
	base http.RoundTripper
	b    *base
}

func (l *limitRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody || resp.StatusCode == http.StatusSwitchingProtocols {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		resp.Body = &eventLimitBody{rc: resp.Body, br: bufio.NewReaderSize(resp.Body, lineBufferSize), b: l.b}
	case "application/json":
		resp.Body = &jsonLimitBody{rc: resp.Body, b: l.b}
	default:
		resp.Body = &plainLimitBody{rc: resp.Body, b: l.b, left: l.b.limit}
	}
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// tooLargeResponse encodes the JSON-RPC error response that replaces an
// oversized response with the given id.
func (b *base) tooLargeResponse(id jsonrpc.ID) []byte {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{
		ID:    id,
		Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: b.tooLarge().Error()},
	})
	if err != nil { // cannot happen for a valid id
		return nil
	}
	return data
}

// sdkMaxDepth is the deepest nesting of objects and arrays go-sdk's decoder
// accepts; a deeper message breaks its HTTP connection.
const sdkMaxDepth = 1000

// decodable returns msg, or, if msg is a response go-sdk could not decode
// (nested too deep), an error response for the same id, so that only that
// call fails.
func (b *base) decodable(msg []byte) []byte {
	if jsonscan.Depth(msg) <= sdkMaxDepth {
		return msg
	}
	id, ok := undecodableResponse(msg)
	if !ok {
		return msg // not ours to mend: go-sdk reports it
	}
	b.logger.Warn("response nested deeper than can be decoded: failing its call", "limit", sdkMaxDepth)
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: b.errorf("the %s's answer nests deeper than %d levels and cannot be decoded", b.peer, sdkMaxDepth).Error(),
	}})
	if err != nil {
		return msg
	}
	return data
}

// decodableEvent applies decodable to the data of a whole SSE event.
func (b *base) decodableEvent(ev []byte) []byte {
	var data [][]byte
	for _, line := range bytes.SplitAfter(ev, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(bytes.TrimRight(v, "\r\n"), []byte(" ")))
		}
	}
	if len(data) == 0 {
		return ev
	}
	msg := bytes.Join(data, []byte("\n"))
	fixed := b.decodable(msg)
	if bytes.Equal(fixed, msg) {
		return ev
	}
	var out []byte
	for _, line := range bytes.SplitAfter(ev, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("data:")) && len(bytes.TrimRight(line, "\r\n")) > 0 {
			out = append(out, line...)
		}
	}
	out = append(append(append(out, "data: "...), fixed...), '\n')
	return append(out, '\n')
}

// scanWriter feeds everything written to it to an envelopeScanner.
type scanWriter struct{ env *envelopeScanner }

func (w scanWriter) Write(p []byte) (int, error) {
	w.env.feed(p)
	return len(p), nil
}

// jsonLimitBody holds a JSON response body of up to limit bytes.
type jsonLimitBody struct {
	rc  io.ReadCloser
	b   *base
	r   io.Reader // set once the size is known
	err error
}

func (j *jsonLimitBody) Read(p []byte) (int, error) {
	if j.r == nil && j.err == nil {
		j.load()
	}
	if j.err != nil {
		return 0, j.err
	}
	return j.r.Read(p)
}

func (j *jsonLimitBody) load() {
	buf, err := io.ReadAll(io.LimitReader(j.rc, j.b.limit+1))
	if err != nil {
		j.err = err
		return
	}
	if int64(len(buf)) <= j.b.limit {
		j.r = bytes.NewReader(j.b.decodable(buf))
		return
	}
	env := new(envelopeScanner)
	env.feed(buf)
	if _, err := io.Copy(scanWriter{env}, j.rc); err != nil {
		j.err = err
		return
	}
	if id, ok := env.responseID(); ok {
		j.b.logger.Warn("response larger than max_message_bytes: failing its call", "limit", j.b.limit)
		j.r = bytes.NewReader(j.b.tooLargeResponse(id))
		return
	}
	j.err = j.b.errorf("%w", j.b.tooLarge())
}

func (j *jsonLimitBody) Close() error { return j.rc.Close() }

// plainLimitBody fails a body of another content type (an error page...)
// once it exceeds the limit.
type plainLimitBody struct {
	rc   io.ReadCloser
	b    *base
	left int64
}

func (l *plainLimitBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.rc.Read(one[:]); n > 0 {
			return 0, l.b.errorf("%w", l.b.tooLarge())
		}
		return l.rc.Read(p)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *plainLimitBody) Close() error { return l.rc.Close() }

// eventLimitBody passes an event stream through one whole event at a time.
// An event over the limit is skipped without being held in memory; if it
// carried a response, an event with a JSON-RPC error response for the same
// id takes its place, otherwise it is dropped with a warning.
type eventLimitBody struct {
	rc  io.ReadCloser
	br  *bufio.Reader
	b   *base
	out []byte // what is left of the current event
	err error
}

func (e *eventLimitBody) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if e.err != nil {
			return 0, e.err
		}
		e.out, e.err = e.nextEvent()
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, nil
}

func (e *eventLimitBody) Close() error { return e.rc.Close() }

// nextEvent returns the next event including its terminating blank line, or
// what was left at the end of the stream along with the error.
func (e *eventLimitBody) nextEvent() ([]byte, error) {
	var ev []byte
	lineStart := 0
	for {
		chunk, err := e.br.ReadSlice('\n')
		if int64(len(ev))+int64(len(chunk)) > e.b.limit+eventSlack {
			return e.skipEvent(ev, chunk, err)
		}
		ev = append(ev, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return ev, err
		}
		if len(bytes.TrimRight(ev[lineStart:], "\r\n")) == 0 {
			return e.b.decodableEvent(ev), nil
		}
		lineStart = len(ev)
	}
}

// skipEvent reads the rest of an oversized event and returns its replacement.
func (e *eventLimitBody) skipEvent(ev, chunk []byte, err error) ([]byte, error) {
	var s eventSkipper
	s.startLine()
	ended := s.feed(ev) || s.feed(chunk)
	for !ended && (err == nil || err == bufio.ErrBufferFull) {
		chunk, err = e.br.ReadSlice('\n')
		ended = s.feed(chunk)
	}
	if !ended {
		return nil, err // the stream ended inside the event: drop it
	}
	var out []byte
	if s.id != nil {
		out = append(append(append(out, "id: "...), s.id...), '\n')
	}
	if id, ok := s.env.responseID(); ok {
		e.b.logger.Warn("response larger than max_message_bytes: failing its call", "limit", e.b.limit)
		if s.event != nil {
			out = append(append(append(out, "event: "...), s.event...), '\n')
		}
		out = append(append(append(out, "data: "...), e.b.tooLargeResponse(id)...), '\n')
	} else {
		e.b.logger.Warn("dropped a server-sent event larger than max_message_bytes", "limit", e.b.limit)
	}
	return append(out, '\n'), nil
}

// eventSkipper follows the lines of an SSE event byte by byte, feeding the
// data fields to an envelope scanner and keeping a short id and event name.
type eventSkipper struct {
	env       envelopeScanner
	inName    bool   // reading the field name
	name      []byte // field name, truncated
	skipSpace bool   // the single space after ':' is not part of the value
	lineLen   int
	dataLines int
	value     []byte // value of an id or event field, while short
	id, event []byte
}

const maxFieldValue = 1024

func (s *eventSkipper) startLine() {
	s.inName, s.name, s.skipSpace, s.lineLen, s.value = true, s.name[:0], false, 0, s.value[:0]
}

// feed consumes p and reports whether the blank line ending the event was seen.
func (s *eventSkipper) feed(p []byte) bool {
	for i := 0; i < len(p); i++ {
		b := p[i]
		if b == '\n' {
			if s.lineLen == 0 {
				return true
			}
			s.endLine()
			s.startLine()
			continue
		}
		if b == '\r' {
			continue
		}
		s.lineLen++
		if s.inName {
			if b == ':' {
				s.inName, s.skipSpace = false, true
				if string(s.name) == "data" {
					if s.dataLines > 0 {
						s.env.feed([]byte{'\n'})
					}
					s.dataLines++
				}
			} else if len(s.name) < 16 {
				s.name = append(s.name, b)
			}
			continue
		}
		if s.skipSpace {
			s.skipSpace = false
			if b == ' ' {
				continue
			}
		}
		switch string(s.name) {
		case "data":
			// Feed the run up to the end of the line in one go.
			j := i
			for j < len(p) && p[j] != '\n' && p[j] != '\r' {
				j++
			}
			s.env.feed(p[i:j])
			s.lineLen += j - i - 1
			i = j - 1
		case "id", "event":
			if len(s.value) <= maxFieldValue {
				s.value = append(s.value, b)
			}
		}
	}
	return false
}

func (s *eventSkipper) endLine() {
	if s.inName || len(s.value) > maxFieldValue {
		return
	}
	switch string(s.name) {
	case "id":
		s.id = append([]byte(nil), bytes.TrimSpace(s.value)...)
	case "event":
		s.event = append([]byte(nil), bytes.TrimSpace(s.value)...)
	}
}
