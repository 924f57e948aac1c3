package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseEnvFile(t *testing.T) {
	data := "\ufeff# comment\n\n" +
		"PLAIN=value\n" +
		"  SPACED = padded value   \n" +
		"export EXPORTED=yes\n" +
		"EMPTY=\n" +
		"COMMENTED=abc # a comment\n" +
		"HASH=a#b\n" +
		"DQ=\"line1\\nline2 \\\"q\\\" \\\\ \\$HOME\"  # after\n" +
		"SQ='literal ${X} \\n'\n" +
		"MULTI=\"first\nsecond\"\n" +
		"SQMULTI='a\nb'\n" +
		"CRLF=windows\r\n" +
		"dotted.name=1\n" +
		"REF=${NOT_EXPANDED}\n" +
		"PLAIN=later wins\n" +
		"LAST=no newline"
	got, err := ParseEnvFile([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"PLAIN": "later wins", "SPACED": "padded value", "EXPORTED": "yes", "EMPTY": "",
		"COMMENTED": "abc", "HASH": "a#b", "DQ": "line1\nline2 \"q\" \\ $HOME",
		"SQ": `literal ${X} \n`, "MULTI": "first\nsecond", "SQMULTI": "a\nb", "CRLF": "windows",
		"dotted.name": "1", "REF": "${NOT_EXPANDED}", "LAST": "no newline",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got, err := ParseEnvFile(nil); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v %v", got, err)
	}
}

func TestParseEnvFileErrors(t *testing.T) {
	const secret = "s3cr3t-value"
	for _, tc := range []struct{ in, want string }{
		{"A=1\njust words " + secret + "\n", `line 2: just: expected "="`},
		{"=" + secret + "\n", "line 1: expected NAME=VALUE"},
		{"1A=" + secret + "\n", `line 1: bad name "1A"`},
		{"A=1\nB=\"" + secret + "\n\n", `line 2: B: the value's " quote is not closed`},
		{"B='" + secret, `line 1: B: the value's ' quote is not closed`},
		{"A=\"" + secret + "\" trailing\n", "line 1: A: unexpected text after the closing quote"},
		{"A=\"x\nx\" " + secret + "\n", "line 2: A: unexpected text"},
		{"A=" + secret + "\x00\n", "line 1: A: the value holds a NUL byte"},
		{"export\n", `line 1: export: expected "="`},
		{"A-B=" + secret + "\n", `A: expected "="`},
		{strings.Repeat("x", MaxEnvFileBytes+1), "larger than"},
	} {
		_, err := ParseEnvFile([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseEnvFile(%.40q) = %v, want %q", tc.in, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error quotes a value: %v", err)
		}
	}
	var many strings.Builder
	for i := range maxEnvFileVars + 1 {
		many.WriteString("V")
		many.WriteString(strings.Repeat("x", i%7))
		many.WriteString(string(rune('a' + i%26)))
		many.WriteString("_")
		many.WriteString(strings.Repeat("y", i/26%26))
		many.WriteString(string(rune('a' + i/676)))
		many.WriteString("=1\n")
	}
	if _, err := ParseEnvFile([]byte(many.String())); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("too many variables: %v", err)
	}
}

func FuzzParseEnvFile(f *testing.F) {
	for _, s := range []string{
		"", "A=1", "export A=1\n", "A=\"x\\ny\"", "A='x\ny'", "# c\n\nA=b # c", "A=\"", "A='", "A=\"\\", "=x",
		"A=\"x\" # y\nB=2", "A=\"x\" y", "\ufeffA=1\r\n", "A=\x00", "exportA=1", "export  A = 1",
	} {
		f.Add([]byte(s))
	}
	const marker = "Zq7marker"
	f.Fuzz(func(t *testing.T, data []byte) {
		vars, err := ParseEnvFile(data)
		if err != nil {
			if vars != nil {
				t.Fatalf("a map with an error: %v", err)
			}
			return
		}
		for k, v := range vars {
			if k == "" || k[0] >= '0' && k[0] <= '9' || strings.ContainsAny(k, "= \t\n\x00") {
				t.Fatalf("bad name %q", k)
			}
			if strings.IndexByte(v, 0) >= 0 {
				t.Fatalf("NUL in the value of %q", k)
			}
		}
		// A value made of the marker is never quoted by an error that
		// follows it.
		_, err = ParseEnvFile(append(append([]byte{}, data...), []byte("\nK="+marker+"\n1")...))
		if err != nil && strings.Contains(err.Error(), marker) {
			t.Fatalf("error quotes a value: %v", err)
		}
	})
}

func TestEnvFileLoad(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global, "srv.env", "TOKEN=from-file-token-1\nMODE=file\nexport EXTRA='x y'\n")
	g := e.writeGlobal("config.yaml", "servers:\n"+
		"  a: {command: x, env_file: srv.env, env: {MODE: explicit}}\n"+
		"  b: {command: x, env_file: \"${DIR}/srv.env\"}\n"+
		"  missing: {command: x, env_file: nope.env}\n"+
		"  broken: {command: x, env_file: broken.env}\n")
	writeFile(t, e.global, "broken.env", "OK=1\nSECRET=\"hunter2-never-shown\n")
	e.environ = []string{"DIR=" + e.global}
	cfg := e.load()
	a := server(t, cfg, "a")
	want := map[string]string{"TOKEN": "from-file-token-1", "MODE": "explicit", "EXTRA": "x y"}
	if a.Err != nil || !reflect.DeepEqual(a.Env, want) || a.EnvFile != filepath.Join(e.global, "srv.env") {
		t.Fatalf("a = %+v", a)
	}
	if b := server(t, cfg, "b"); b.Err != nil || b.Env["TOKEN"] != "from-file-token-1" {
		t.Fatalf("b = %+v", b)
	}
	wantErrContains(t, server(t, cfg, "missing").Err, g, `server "missing"`, "env_file", filepath.Join(e.global, "nope.env"))
	brokenErr := server(t, cfg, "broken").Err
	wantErrContains(t, brokenErr, "env_file", "broken.env", "line 2: SECRET")
	if strings.Contains(brokenErr.Error(), "hunter2") {
		t.Fatalf("error quotes a value: %v", brokenErr)
	}
	// The file's values are secrets like env values.
	if !slices.Contains(cfg.SecretValues(), "from-file-token-1") {
		t.Errorf("SecretValues lacks the env_file value: %v", cfg.SecretValues())
	}

	// VS Code's spelling, in a file of VS Code's shape.
	e.writeProject(".mcp.json", `{"mcpServers": {"vs": {"command": "x", "envFile": "vs.env"}}}`)
	writeFile(t, e.work, "vs.env", "V=1\n")
	// Changed, the project is untrusted: its server does not start, and
	// its env file is not read.
	if vs := server(t, e.load(), "vs"); !vs.Untrusted || vs.Env["V"] != "" {
		t.Fatalf("untrusted vs = %+v", vs)
	}
	e.trust()
	if vs := server(t, e.load(), "vs"); vs.Err != nil || vs.Env["V"] != "1" {
		t.Fatalf("vs = %+v", vs)
	}
}

// A project file may name an env file inside the project only: a cloned
// repository must not be able to read the user's credential files into
// its server's environment.
func TestEnvFileProjectContainment(t *testing.T) {
	e := newEnv(t)
	outside := writeFile(t, e.global, "creds.env", "AWS_SECRET=outside-secret-123\n")
	writeFile(t, e.work, "ok.env", "IN=1\n")
	if err := os.Symlink(outside, filepath.Join(e.work, "link.env")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Mkdir(filepath.Join(e.work, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.work, "sub"), "deep.env", "DEEP=1\n")
	e.environ = []string{"HOME=" + e.global}
	e.writeProject(".mcphost.yaml", "servers:\n"+
		"  ok: {command: x, env_file: ok.env}\n"+
		"  deep: {command: x, env_file: ./sub/../sub/deep.env}\n"+
		"  abs: {command: x, env_file: "+outside+"}\n"+
		"  up: {command: x, env_file: ../global/creds.env}\n"+
		"  home: {command: x, env_file: ~/creds.env}\n"+
		"  link: {command: x, env_file: link.env}\n")
	e.trust()
	cfg := e.load()
	if s := server(t, cfg, "ok"); s.Err != nil || s.Env["IN"] != "1" {
		t.Errorf("ok = %+v", s)
	}
	if s := server(t, cfg, "deep"); s.Err != nil || s.Env["DEEP"] != "1" {
		t.Errorf("deep = %+v", s)
	}
	for _, id := range []string{"abs", "up", "home", "link"} {
		s := server(t, cfg, id)
		wantErrContains(t, s.Err, "env_file", "outside the project directory", "local or user scope")
		if s.Env["AWS_SECRET"] != "" {
			t.Errorf("%s read the outside file: %+v", id, s)
		}
	}
	// The same file named from the user's own local scope is read.
	if _, err := AddServer(e.opts(), ScopeLocal, ServerEntry{ID: "mine", Command: "x", EnvFile: outside}, false); err != nil {
		t.Fatal(err)
	}
	if s := server(t, e.load(), "mine"); s.Err != nil || s.Env["AWS_SECRET"] != "outside-secret-123" {
		t.Errorf("mine = %+v", s)
	}
	// A project may not add an env_file to the user's own server either.
	e.writeGlobal("config.yaml", "servers:\n  g: {command: x}\n")
	e.writeProject(".mcphost.yaml", "servers:\n  g: {env_file: ok.env}\n")
	e.trust()
	cfg, err := Load(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if s := server(t, cfg, "g"); s.Env != nil || s.EnvFile != "" {
		t.Errorf("g = %+v", s)
	}
	if w := strings.Join(cfg.Warnings, "\n"); !strings.Contains(w, "env_file ignored") {
		t.Errorf("warnings = %q", w)
	}
}

func TestEnvFileTooLarge(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global, "big.env", "A="+strings.Repeat("x", MaxEnvFileBytes)+"\n")
	e.writeGlobal("config.yaml", "servers:\n  a: {command: x, env_file: big.env}\n")
	wantErrContains(t, server(t, e.load(), "a").Err, "env_file", "big.env")
}

func TestServerEntryEnvFile(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.work, "s.env", "K=v\n")
	p, err := AddServer(e.opts(), ScopeProject, ServerEntry{ID: "s", Command: "x", EnvFile: "s.env"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := readString(t, p); !strings.Contains(got, "env_file: s.env") {
		t.Fatalf("file:\n%s", got)
	}
	e.trust()
	if s := server(t, e.load(), "s"); s.Err != nil || s.Env["K"] != "v" {
		t.Fatalf("s = %+v", s)
	}
	entry, err := ParseServerEntry("j", []byte(`{"command": "x", "envFile": "${workspaceFolder}/.env"}`))
	if err != nil || entry.EnvFile != "${workspaceFolder}/.env" {
		t.Fatalf("ParseServerEntry = %+v, %v", entry, err)
	}
}
