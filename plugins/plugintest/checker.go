package plugintest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// What every hook's checks share: timeouts, concurrency, cancellation, comparing.

type checker struct {
	ctx        context.Context
	stage      abi.Stage
	opts       Options
	mu         sync.Mutex
	violations []Violation
}

func (c *checker) fail(h abi.Hook, name, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations = append(c.violations, Violation{Hook: h, Case: name, Msg: msg})
}

func (c *checker) callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, c.opts.Timeout)
}

// call runs f under the per-call timeout and reports a stage that does not
// return in time (the call itself may go on: a native stage cannot be
// stopped).
func call[T any](c *checker, h abi.Hook, name string, f func(context.Context) (T, error)) (T, error, bool) {
	ctx, cancel := c.callCtx()
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err, true
	case <-time.After(c.opts.Timeout + 2*time.Second):
		c.fail(h, name, fmt.Sprintf("did not return within %s of its context's deadline", c.opts.Timeout))
		var zero T
		return zero, nil, false
	}
}

// hookCheck is what differs between the hooks' checks: the requests, how a
// request is named in a violation, the call, and the hook's own rules.
type hookCheck[Req, Resp any] struct {
	hook   abi.Hook
	reqs   []*Req
	label  func(i int, req *Req) string
	call   func(ctx context.Context, req *Req) (*Resp, error)
	nilMsg string // the violation for a nil answer without an error
	// valid reports what breaks the hook's rules; false skips the rest of
	// the request's checks (the answer is no reference then).
	valid func(name string, req *Req, r *Resp) bool
	// repeatable: the same request must get the same answer, sequentially
	// and under concurrent calls. Not auth: a credential may be fresh.
	repeatable bool
}

// check runs every request of k through the stage once: an answer, by the
// hook's rules, the request left as it was given, the same answer again,
// and then the same answers under concurrent calls.
func check[Req, Resp any](c *checker, k hookCheck[Req, Resp]) {
	h := k.hook
	answers := make([]any, len(k.reqs))
	for i, req := range k.reqs {
		name := k.label(i, req)
		before := clone(req)
		r, err, ok := call(c, h, name, func(ctx context.Context) (*Resp, error) { return k.call(ctx, req) })
		if !ok {
			return
		}
		if err != nil {
			c.fail(h, name, "error on a valid request: "+err.Error())
			continue
		}
		if r == nil {
			c.fail(h, name, k.nilMsg)
			continue
		}
		if !k.valid(name, req, r) {
			continue
		}
		if !same(req, before) {
			c.fail(h, name, "the stage changed the request it was given")
		}
		answers[i] = normalize(r)
		if k.repeatable && !c.opts.NonDeterministic {
			again, err, ok := call(c, h, name, func(ctx context.Context) (*Resp, error) { return k.call(ctx, clone(req)) })
			if ok && (err != nil || !same(normalize(again), answers[i])) {
				c.fail(h, name, fmt.Sprintf("not deterministic: %s then %s (%v)", show(r), show(again), err))
			}
		}
	}
	if !k.repeatable {
		return
	}
	c.parallel(h, len(k.reqs), func(ctx context.Context, i int) (any, error) {
		r, err := k.call(ctx, clone(k.reqs[i]))
		return normalize(r), err
	}, func(i int) any { return answers[i] })
}

// parallel calls f for every case index from Concurrency goroutines and
// reports any answer that differs from want(i).
func (c *checker) parallel(h abi.Hook, n int, run func(ctx context.Context, i int) (any, error), want func(i int) any) {
	if c.opts.Concurrency < 0 || c.opts.NonDeterministic || n == 0 {
		return
	}
	c.mu.Lock()
	for _, v := range c.violations {
		if v.Hook == h {
			// The sequential answers are not a reference then.
			c.mu.Unlock()
			return
		}
	}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for g := range c.opts.Concurrency {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range n {
				i := (g + k) % n
				ctx, cancel := c.callCtx()
				got, err := run(ctx, i)
				cancel()
				if err != nil {
					c.fail(h, fmt.Sprintf("concurrent/%d", i), "error under concurrent calls: "+err.Error())
					return
				}
				if !reflect.DeepEqual(got, want(i)) {
					c.fail(h, fmt.Sprintf("concurrent/%d", i), fmt.Sprintf("answer under concurrent calls differs from the sequential one: %s, want %s", show(got), show(want(i))))
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	if len(data) > 300 {
		return string(data[:300]) + "…"
	}
	return string(data)
}

// clone deep-copies a request through JSON, to detect a stage that changes
// the request it was given.
func clone[T any](v *T) *T {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		panic(err)
	}
	return &out
}

func same(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// canceled checks that a stage handed an already-canceled context returns
// (an error or an answer) rather than blocking.
func (c *checker) canceled(h abi.Hook) {
	ctx, cancel := context.WithCancel(c.ctx)
	cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		switch h {
		case abi.HookPolicy:
			c.stage.(abi.PolicyStage).Policy(ctx, PolicyRequests()[0])
		case abi.HookFilterTools:
			c.stage.(abi.FilterStage).FilterTools(ctx, FilterRequests()[0])
		case abi.HookMapNames:
			c.stage.(abi.NameStage).MapNames(ctx, MapNamesRequests()[0])
		case abi.HookTransformResult:
			c.stage.(abi.TransformStage).TransformResult(ctx, TransformRequests()[0])
		case abi.HookAuth:
			c.stage.(abi.AuthStage).Auth(ctx, AuthRequests()[0])
		}
	}()
	select {
	case <-done:
	case <-time.After(c.opts.Timeout):
		c.fail(h, "canceled context", "blocked on an already-canceled context")
	}
}

func boolp(b bool) *bool { return &b }

// normalize makes two answers comparable with DeepEqual whatever their
// number types (a rewrite through JSON turns ints into float64).
func normalize(v any) any {
	data, _ := json.Marshal(v)
	var out any
	json.Unmarshal(data, &out)
	return out
}
