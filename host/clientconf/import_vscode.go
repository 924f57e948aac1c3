package clientconf

import (
	"fmt"
)

// importVSCode reads VS Code's mcp.json ({"servers", "inputs"}) or the
// "mcp" section of its settings.json (the same two keys).
func importVSCode(f *fileReader, root map[string]any) {
	container, where := root, ""
	if _, ok := root["servers"]; !ok {
		if m, ok := root["mcp"].(map[string]any); ok {
			container, where = m, "mcp."
		}
	}
	sec := f.section(container, where+"servers", "servers")
	if sec == nil {
		f.notef("no \"servers\" (or \"mcp\": {\"servers\"}) in this file")
		return
	}
	inputs := f.vsInputs(container, where+"inputs")
	f.servers(sec, f.src.Scope, func(r *entryReader) {
		r.inputs = inputs
		readVSCodeServer(r)
	})
}

// vsInputs reads "inputs": the values VS Code asks for when a server
// refers to them as ${input:ID}.
func (f *fileReader) vsInputs(container map[string]any, where string) map[string]vsInput {
	inputs := map[string]vsInput{}
	v, ok := container["inputs"]
	if !ok || v == nil {
		return inputs
	}
	list, ok := v.([]any)
	if !ok {
		f.notef("%s is not a list; servers that refer to an input are left out", where)
		return inputs
	}
	if len(list) > maxServers {
		f.notef("%s: only the first %d inputs are read", where, maxServers)
		list = list[:maxServers]
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		id, _ := m["id"].(string)
		if !ok || id == "" {
			f.notef("%s[%d] has no id; servers that refer to it are left out", where, i)
			continue
		}
		in := vsInput{}
		in.Type, _ = m["type"].(string)
		in.Description, _ = m["description"].(string)
		in.Password, _ = m["password"].(bool)
		in.Default, _ = scalarText(m["default"])
		if opts, ok := m["options"].([]any); ok {
			for _, o := range opts {
				switch t := o.(type) {
				case string:
					in.Options = append(in.Options, t)
				case map[string]any: // {"label", "value"}
					if s, ok := scalarText(t["value"]); ok {
						in.Options = append(in.Options, s)
					}
				}
			}
		}
		inputs[id] = in
	}
	return inputs
}

// readVSCodeServer reads one entry of VS Code's "servers".
func readVSCodeServer(r *entryReader) {
	e := &r.im.Entry
	if t, ok := r.text("type"); ok {
		r.setTransport("type", t)
	}
	e.Command, _ = r.value("command", true)
	e.Args = r.values("args")
	e.Env = r.valueMap("env", false)
	r.envFile("envFile")
	e.Cwd = r.cwd("cwd")
	e.URL, _ = r.value("url", true)
	e.Headers = r.valueMap("headers", true)
	r.drop("dev", "VS Code's debugging and restart-on-change settings have no mcphost equivalent")
	for _, k := range []string{"sandboxEnabled", "sandbox"} {
		r.drop(k, "mcphost does not sandbox server processes; its policy decides which calls run")
	}
	for _, k := range []string{"gallery", "version"} {
		r.drop(k, fmt.Sprintf("%s's note of where the server was installed from", displayName(r.kind)))
	}
	r.unknown()
}
