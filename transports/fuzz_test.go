package transports

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/hashicorp/go-hclog"
)

func testBase(limit int64) *base {
	return &base{id: "fuzz", kind: "stdio", limit: limit, peer: "server", logger: hclog.NewNullLogger()}
}

// lineModel is what lineSource must yield for data: one entry per frame,
// nil for an oversized frame, and the error that ends the stream.
func lineModel(data []byte, limit int64) (frames [][]byte, end error) {
	segs := bytes.Split(data, []byte("\n"))
	last := segs[len(segs)-1]
	for _, seg := range segs[:len(segs)-1] {
		content := bytes.TrimRight(seg, "\r\n")
		switch {
		case int64(len(seg))+1 > limit+2 || int64(len(content)) > limit:
			frames = append(frames, nil)
		case len(bytes.TrimSpace(content)) > 0:
			frames = append(frames, content)
		}
	}
	switch {
	case int64(len(last)) > limit+2:
		return append(frames, nil), io.EOF
	case len(bytes.TrimSpace(last)) > 0:
		return frames, io.ErrUnexpectedEOF
	}
	return frames, io.EOF
}

func FuzzLineSource(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), uint16(64), false)
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a","result":{"text":"`+string(bytes.Repeat([]byte("x"), 300))+`"}}`+"\r\n\n  \n"), uint16(40), true)
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}]`+"\npartial"), uint16(200), false)
	f.Add([]byte("not json\n\x00\xff\n{\"id\":\n"), uint16(3), true)
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, oneByte bool) {
		lim := int64(limit%512) + 1
		var r io.Reader = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		src := newLineSource(r, lim)
		want, wantEnd := lineModel(data, lim)
		for i := 0; ; i++ {
			frame, err := src.next()
			if err != nil {
				var over *oversizeError
				if errors.As(err, &over) {
					_, _ = over.env.responseID()
					if i >= len(want) || want[i] != nil {
						t.Fatalf("frame %d: unexpected oversize error", i)
					}
					continue
				}
				if err != wantEnd || i != len(want) {
					t.Fatalf("frame %d: err %v, want %v after %d frames", i, err, wantEnd, len(want))
				}
				break
			}
			if int64(len(frame)) > lim {
				t.Fatalf("frame of %d bytes over the limit %d", len(frame), lim)
			}
			if i >= len(want) || !bytes.Equal(frame, want[i]) {
				t.Fatalf("frame %d = %q, want %q", i, frame, want)
			}
			_, _ = decodeFrame(frame)
		}

		// The whole connection: never panics, always ends with an error.
		c := newMsgConn(testBase(lim), newLineSource(bytes.NewReader(data), lim))
		c.start()
		for {
			if _, err := c.Read(context.Background()); err != nil {
				break
			}
		}
		c.Close()
	})
}

func FuzzEnvelopeScanner(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"a":[1,"}",{"b":"\""}]}}`))
	f.Add([]byte(`{"result":null,"id":"x\"y","jsonrpc":"2.0"}`))
	f.Add([]byte(` { "\u0069d" : 7 , "error" : {"code":1} } `))
	f.Add([]byte(`{"method":"m","id":1e3,"params":{}}`))
	f.Add([]byte(`{"id":1,"id":"two","result":1}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s envelopeScanner
		k := len(data) / 2
		s.feed(data[:k])
		s.feed(data[k:])
		id, ok := s.responseID()

		trimmed := bytes.TrimSpace(data)
		var m map[string]json.RawMessage
		if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(data, &m) != nil {
			return
		}
		if s.state != esDone {
			t.Fatalf("valid object not scanned to the end (state %d)", s.state)
		}
		_, hasMethod := m["method"]
		_, hasResult := m["result"]
		_, hasErr := m["error"]
		if s.hasMethod != hasMethod || s.hasResult != hasResult || s.hasErr != hasErr {
			t.Fatalf("keys: scanner method=%v result=%v error=%v, json %v %v %v",
				s.hasMethod, s.hasResult, s.hasErr, hasMethod, hasResult, hasErr)
		}
		raw, hasID := m["id"]
		if hasID && len(raw) <= maxIDLen {
			var a, b any
			if json.Unmarshal(raw, &a) != nil || json.Unmarshal(s.id, &b) != nil {
				t.Fatalf("id %q vs scanned %q", raw, s.id)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("id %s, scanned %s", ja, jb)
			}
		}
		if ok && (hasMethod || !hasID || !(hasResult || hasErr)) {
			t.Fatalf("responseID %v for a message that is not a response", id)
		}
	})
}

func FuzzEventLimitBody(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), uint16(100))
	f.Add([]byte("id: 7\ndata: {\"jsonrpc\":\"2.0\",\n"+"data: \"id\":3,\"result\":\""+string(bytes.Repeat([]byte("z"), 9000))+"\"}\n\n: ping\n\n"), uint16(10))
	f.Add([]byte("data: x\r\n\r\ndata"), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		b := testBase(int64(limit))
		body := &eventLimitBody{rc: io.NopCloser(bytes.NewReader(data)), b: b}
		body.br = bufioReader(iotest.HalfReader(bytes.NewReader(data)))
		out, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) <= int64(limit)+eventSlack && !bytes.Equal(out, data) {
			t.Fatalf("small stream changed:\n%q\n%q", data, out)
		}
		// Every event handed on is within the limit, or a replacement.
		var ev []byte
		for line := range bytes.Lines(out) {
			ev = append(ev, line...)
			if len(bytes.TrimRight(line, "\r\n")) > 0 && line[len(line)-1] == '\n' {
				continue
			}
			if int64(len(ev)) > int64(limit)+eventSlack && !bytes.Contains(ev, []byte("max_message_bytes")) {
				t.Fatalf("event of %d bytes passed", len(ev))
			}
			ev = ev[:0]
		}
	})
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 16) }
