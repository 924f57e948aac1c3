package providers

// argPlan undoes, in the model's arguments, what strict mode made of
// optional properties: the model must send every property, null for those
// it means to leave out, and a server that never allowed null would refuse
// the call. A null for such a property is taken out. Properties whose
// schema accepted null keep it: the model may mean it.
type argPlan struct {
	drop  map[string]bool     // properties whose null is taken out
	keep  map[string]bool     // properties whose schema accepts null
	props map[string]*argPlan // plans of property values
	items *argPlan            // plan of array elements
}

func (p *argPlan) dropNull(name string) {
	if p.drop == nil {
		p.drop = map[string]bool{}
	}
	p.drop[name] = true
}

func (p *argPlan) keepNull(name string) {
	if p.keep == nil {
		p.keep = map[string]bool{}
	}
	p.keep[name] = true
}

func (p *argPlan) prop(name string, sub *argPlan) {
	if p.props == nil {
		p.props = map[string]*argPlan{}
	}
	p.props[name] = sub
}

// orNil is nil for a plan that changes nothing.
func (p *argPlan) orNil() *argPlan {
	if p == nil || len(p.drop) == 0 && len(p.props) == 0 && p.items == nil {
		return nil
	}
	return p
}

// mergePlans joins the plans of anyOf alternatives: which alternative a
// value matches is not known, so a null is taken out only where no
// alternative accepts it.
func mergePlans(plans []*argPlan) *argPlan {
	out := &argPlan{}
	var items []*argPlan
	subs := map[string][]*argPlan{}
	for _, p := range plans {
		if p == nil {
			continue
		}
		for k := range p.drop {
			out.dropNull(k)
		}
		for k := range p.keep {
			out.keepNull(k)
		}
		for k, s := range p.props {
			subs[k] = append(subs[k], s)
		}
		if p.items != nil {
			items = append(items, p.items)
		}
	}
	for k := range out.keep {
		delete(out.drop, k)
	}
	for k, ss := range subs {
		if s := mergePlans(ss); s != nil {
			out.prop(k, s)
		}
	}
	if len(items) > 0 {
		out.items = mergePlans(items)
	}
	return out.orNil()
}

// apply changes args in place. The arguments were decoded with a bounded
// depth, which bounds the recursion.
func (p *argPlan) apply(v any) {
	if p == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil && p.drop[k] {
				delete(x, k)
			} else if sub := p.props[k]; sub != nil {
				sub.apply(e)
			}
		}
	case []any:
		for _, e := range x {
			p.items.apply(e)
		}
	}
}
