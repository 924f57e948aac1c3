package transports

import (
	"bufio"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Reading a stdio server's pipes: its stderr kept, reads that end after its exit.

// Stderr capture limits.
const (
	stderrLines   = 50
	stderrLineMax = 1024
)

// readStderr logs every stderr line at debug level and keeps the last ones.
func (p *process) readStderr() {
	defer close(p.stderrDone)
	br := bufio.NewReaderSize(&exitAwareReader{f: p.stderr, exited: p.exited}, stderrLineMax)
	for {
		line, err := br.ReadSlice('\n')
		truncated := false
		if err == bufio.ErrBufferFull {
			line = append([]byte(nil), line...)
			truncated = true
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
		}
		s := strings.ToValidUTF8(strings.TrimRight(string(line), "\r\n"), "\uFFFD")
		if truncated {
			s += " [truncated]"
		}
		if strings.TrimSpace(s) != "" {
			p.ring.add(s)
			p.b.logger.Debug("server stderr", "line", s)
		}
		if err != nil {
			return
		}
	}
}

// exitAwareReader reads a pipe of the server. Once the server exited, a read
// that waits longer than straggleWait for data ends the stream: whoever still
// holds the pipe open is not the server.
type exitAwareReader struct {
	f      *os.File
	exited <-chan struct{}
}

func (r *exitAwareReader) Read(b []byte) (int, error) {
	select {
	case <-r.exited:
		_ = r.f.SetReadDeadline(time.Now().Add(straggleWait))
	default:
	}
	n, err := r.f.Read(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return n, io.EOF
	}
	return n, err
}

// stderrRing keeps the last lines of a process's stderr.
type stderrRing struct {
	mu   sync.Mutex
	buf  []string
	next int
	full bool
}

func newStderrRing(n int) *stderrRing { return &stderrRing{buf: make([]string, n)} }

func (r *stderrRing) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf[r.next] = s
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

func (r *stderrRing) tail() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return slices.Clone(r.buf[:r.next])
	}
	return append(slices.Clone(r.buf[r.next:]), r.buf[:r.next]...)
}
