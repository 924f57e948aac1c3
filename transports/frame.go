package transports

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// frameSource yields whole frames (one JSON-RPC message or batch each) from
// a byte stream, each in a buffer of its own that the caller keeps. A frame
// over the limit is skipped without being buffered and reported as an
// *oversizeError carrying what the envelope scanner saw.
type frameSource interface {
	next() ([]byte, error)
}

type oversizeError struct{ env *envelopeScanner }

func (*oversizeError) Error() string { return "frame larger than the limit" }

// lineSource reads newline-delimited frames (stdio, in-process).
type lineSource struct {
	r     *bufio.Reader
	limit int64
	eof   bool // set when skip met the end of the stream
}

const lineBufferSize = 64 << 10

func newLineSource(r io.Reader, limit int64) *lineSource {
	return &lineSource{r: bufio.NewReaderSize(r, lineBufferSize), limit: limit}
}

func (l *lineSource) next() ([]byte, error) {
	for {
		if l.eof {
			return nil, io.EOF
		}
		var buf []byte
		for {
			chunk, err := l.r.ReadSlice('\n')
			// Up to two bytes of the line terminator do not count.
			if int64(len(buf))+int64(len(chunk)) > l.limit+2 {
				return nil, l.skip(buf, chunk, err)
			}
			buf = append(buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF && len(bytes.TrimSpace(buf)) > 0 {
				// Every message ends with a newline: this one was cut short,
				// typically by a crash, which the caller explains better.
				return nil, io.ErrUnexpectedEOF
			}
			if err != nil {
				return nil, err
			}
			break
		}
		line := bytes.TrimRight(buf, "\r\n")
		if int64(len(line)) > l.limit {
			env := new(envelopeScanner)
			env.feed(line)
			return nil, &oversizeError{env}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue // blank lines carry nothing
		}
		return line, nil
	}
}

// skip discards the rest of an oversized line, scanning it for its envelope.
func (l *lineSource) skip(buf, chunk []byte, err error) error {
	env := new(envelopeScanner)
	env.feed(buf)
	env.feed(chunk)
	for err == bufio.ErrBufferFull {
		chunk, err = l.r.ReadSlice('\n')
		env.feed(chunk)
	}
	if err == io.EOF {
		l.eof = true
	} else if err != nil {
		return err
	}
	return &oversizeError{env}
}

// decodeFrame decodes one frame: a JSON-RPC message or a batch of them.
// The messages may point into data (see decodeMessage): a frameSource hands
// out frames nothing else holds.
func decodeFrame(data []byte) ([]jsonrpc.Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, err
		}
		if len(raws) == 0 {
			return nil, errors.New("empty batch")
		}
		msgs := make([]jsonrpc.Message, 0, len(raws))
		for _, raw := range raws {
			msg, err := decodeMessage(raw)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, msg)
		}
		return msgs, nil
	}
	msg, err := decodeMessage(data)
	if err != nil {
		return nil, err
	}
	return []jsonrpc.Message{msg}, nil
}

// isNullIDResponse reports whether data is one JSON-RPC response (an error
// or a result, no method) whose id is null.
func isNullIDResponse(data []byte) bool {
	var env struct {
		ID     json.RawMessage  `json:"id"`
		Method *json.RawMessage `json:"method"`
		Error  json.RawMessage  `json:"error"`
		Result json.RawMessage  `json:"result"`
	}
	if json.Unmarshal(data, &env) != nil {
		return false
	}
	return string(env.ID) == "null" && env.Method == nil && (env.Error != nil || env.Result != nil)
}

// undecodableResponse reports the id of data if it is one complete JSON-RPC
// response, read at its top level only.
func undecodableResponse(data []byte) (jsonrpc.ID, bool) {
	var env envelopeScanner
	env.feed(bytes.TrimSpace(data))
	return env.responseID()
}

// msgConn is the mcp.Connection shared by stdio, websocket (both sides) and
// in-process: a goroutine pulls frames from a frameSource, decodes them and
// hands them to Read; Write encodes and calls writeFrame.
//
// A frame over the limit that is a response fails only the call it answers
// (Read returns a response carrying the too-large error); any other oversized
// frame, an undecodable frame or the end of the stream ends the connection
// with a descriptive, sticky error.
type msgConn struct {
	b   *base
	src frameSource

	// writeFrame sends one encoded message. Calls are serialised.
	writeFrame func(ctx context.Context, data []byte) error
	// shutdown closes the underlying stream (and stops a process); called once.
	shutdown func() error
	// endErr maps the error that ended the stream (io.EOF, a closed pipe...)
	// to the error Read reports; it is not called when we closed the stream.
	endErr func(err error) error

	nullIDs  int // answers with id null seen (read loop only)
	incoming chan jsonrpc.Message
	readDone chan struct{} // closed when the read loop ended; readErr is set
	readErr  error

	// writing holds one token: the right to write a frame. A channel
	// rather than a mutex, so that a caller who gives up while another's
	// frame is being written stops waiting at once.
	writing   chan struct{}
	closing   atomic.Bool
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

func newMsgConn(b *base, src frameSource) *msgConn {
	return &msgConn{
		b:        b,
		src:      src,
		incoming: make(chan jsonrpc.Message),
		readDone: make(chan struct{}),
		closed:   make(chan struct{}),
		writing:  make(chan struct{}, 1),
	}
}

// start runs the read loop; call it once the hooks are set.
func (c *msgConn) start() { go c.readLoop() }

func (c *msgConn) readLoop() {
	var err error
	defer func() {
		c.readErr = err
		close(c.readDone)
	}()
	for {
		var data []byte
		data, err = c.src.next()
		var msgs []jsonrpc.Message
		if err != nil {
			var over *oversizeError
			if !errors.As(err, &over) {
				err = c.streamEnded(err)
				return
			}
			id, ok := over.env.responseID()
			if !ok {
				err = c.b.errorf("%w", c.b.tooLarge())
				return
			}
			c.b.logger.Warn("response larger than max_message_bytes: failing its call", "limit", c.b.limit)
			msgs = []jsonrpc.Message{&jsonrpc.Response{ID: id, Error: c.b.tooLarge()}}
		} else {
			msgs, err = decodeFrame(data)
			if err != nil && isNullIDResponse(data) {
				// A server's answer to something it could not parse (JSON-RPC
				// gives such an answer id null): it answers no call of ours,
				// and the stream is still in step.
				// The first is a warning; a server repeating it is not
				// allowed to flood the log.
				if c.nullIDs++; c.nullIDs == 1 {
					c.b.logger.Warn("ignored an answer with id null (the server could not parse a message)", "message", prefix(data, 200))
				} else {
					c.b.logger.Debug("ignored an answer with id null", "count", c.nullIDs, "message", prefix(data, 200))
				}
				err = nil
				continue
			}
			if err != nil {
				id, ok := undecodableResponse(data)
				if !ok {
					err = c.b.errorf("invalid JSON-RPC message from %s: %v (message starts with %q)", c.b.peer, err, prefix(data, 80))
					return
				}
				// A well-formed response the SDK cannot take (nested
				// deeper than it accepts, say) fails only its call.
				c.b.logger.Warn("response could not be decoded: failing its call", "error", err)
				msgs = []jsonrpc.Message{&jsonrpc.Response{ID: id, Error: c.b.errorf("the %s's answer could not be decoded (%w): %v", c.b.peer, ErrResponseRefused, err)}}
				err = nil
			}
		}
		for _, msg := range msgs {
			select {
			case c.incoming <- msg:
			case <-c.closed:
				err = io.EOF
				return
			}
		}
	}
}

func (c *msgConn) streamEnded(err error) error {
	if c.closing.Load() {
		return io.EOF
	}
	if c.endErr != nil {
		return c.endErr(err)
	}
	if errors.Is(err, io.EOF) {
		return c.b.errorf("connection closed by %s: %w", c.b.peer, err)
	}
	return c.b.errorf("read: %w", err)
}

func prefix(data []byte, n int) string {
	if len(data) > n {
		return string(data[:n]) + "..."
	}
	return string(data)
}

// Read implements mcp.Connection.
func (c *msgConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg := <-c.incoming:
		c.b.saw(msg)
		return msg, nil
	case <-c.readDone:
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection. A request written whole is recorded in
// the Delivery of ctx, if any; one that failed did not reach the server
// whole (a pipe or a WebSocket delivers a line or a frame whole or not at
// all), so it can be sent again on a new connection without running twice.
func (c *msgConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := c.write(ctx, msg); err != nil {
		return err
	}
	if d, ok := ctx.Value(deliveryKey{}).(*Delivery); ok {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			d.sent.Store(true)
		}
	}
	return nil
}

func (c *msgConn) write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-c.closed:
		return c.b.errorf("%w", mcp.ErrConnectionClosed)
	default:
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return c.b.errorf("encode message: %w", err)
	}
	select {
	case c.writing <- struct{}{}:
	case <-ctx.Done():
		// The caller gave up while another's frame was being written:
		// nothing of this one was, and the stream is still in step.
		return ctx.Err()
	case <-c.closed:
		return c.b.errorf("%w", mcp.ErrConnectionClosed)
	}
	if err := ctx.Err(); err != nil {
		// Given up at the moment the turn came: a write begun with its
		// context already done would look like a server that stopped
		// reading, and end the session.
		<-c.writing
		return err
	}
	err = c.writeFrame(ctx, data)
	<-c.writing
	if err == nil {
		return nil
	}
	if errors.Is(err, errWriteStalled) {
		return c.b.errorf("%w", err)
	}
	if c.closing.Load() {
		return c.b.errorf("%w", mcp.ErrConnectionClosed)
	}
	select {
	case <-c.readDone:
		// The stream is gone; say why (e.g. the process exited) rather than
		// "broken pipe".
		if c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
			return c.readErr
		}
	default:
	}
	return c.b.errorf("write: %w", err)
}

// Close implements mcp.Connection. It is idempotent; concurrent callers wait
// for the first one.
func (c *msgConn) Close() error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		close(c.closed)
		if c.shutdown != nil {
			c.closeErr = c.shutdown()
		}
	})
	return c.closeErr
}

// SessionID implements mcp.Connection; these transports have no session id.
func (c *msgConn) SessionID() string { return "" }
