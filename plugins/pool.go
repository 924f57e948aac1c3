package plugins

import (
	"context"
	"errors"
	"sync"
)

var errPoolClosed = errors.New("plugin closed")

// pool is a bounded pool of instances of one plugin. Extism instances are
// not safe for concurrent calls, so each call takes one for itself. At most
// size instances exist: a call takes a slot (waiting, with its context, when
// all are in use), then an idle instance, or makes a new one. Instances are
// made lazily, and one that faulted is closed instead of returned, so the
// next call gets a fresh one.
type pool struct {
	slots   chan struct{} // a token per call in progress
	idle    chan *instance
	newInst func(context.Context) (*instance, error)

	mu     sync.Mutex
	closed bool
}

func newPool(size int, newInst func(context.Context) (*instance, error)) *pool {
	return &pool{
		slots:   make(chan struct{}, size),
		idle:    make(chan *instance, size),
		newInst: newInst,
	}
}

func (p *pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// get takes an instance; put must follow.
func (p *pool) get(ctx context.Context) (*instance, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.isClosed() {
		<-p.slots
		return nil, errPoolClosed
	}
	select {
	case in := <-p.idle:
		return in, nil
	default:
	}
	in, err := p.newInst(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return in, nil
}

// put returns an instance taken with get: to the idle list if healthy, else
// it is closed. The instance goes back before the slot is released, so the
// next call that gets the slot finds it.
func (p *pool) put(in *instance, healthy bool) {
	if healthy && !p.isClosed() {
		select {
		case p.idle <- in:
			in = nil
		default:
		}
	}
	if in != nil {
		in.close()
	}
	<-p.slots
}

// close refuses new calls, waits for calls in flight (until ctx ends) and
// closes the idle instances. Instances still in use when ctx ends are
// closed by put, or with the runtime.
func (p *pool) close(ctx context.Context) {
	p.mu.Lock()
	already := p.closed
	p.closed = true
	p.mu.Unlock()
	if already {
		return
	}
	held := 0
wait:
	for held < cap(p.slots) {
		select {
		case p.slots <- struct{}{}:
			held++
		case <-ctx.Done():
			break wait
		}
	}
	for {
		select {
		case in := <-p.idle:
			in.close()
		default:
			for ; held > 0; held-- {
				<-p.slots
			}
			return
		}
	}
}
