package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/knadh/koanf/maps"
	kjson "github.com/knadh/koanf/parsers/json"
	ktoml "github.com/knadh/koanf/parsers/toml/v2"
	kyaml "github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/v2"

	"github.com/mcphost/mcphost/internal/tomlguard"
)

// Parsing a file by its format, with errors that name the line.

// formatOf maps a file name to its parser format by extension.
func formatOf(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return "yaml", nil
	case ".json":
		return "json", nil
	case ".toml":
		return "toml", nil
	}
	return "", fmt.Errorf("config: %s: unknown file format %q (use .yaml, .yml, .json or .toml)", path, filepath.Ext(path))
}

func parserFor(format string) koanf.Parser {
	switch format {
	case "json":
		return kjson.Parser()
	case "toml":
		return ktoml.Parser()
	}
	return kyaml.Parser()
}

// maxTOMLDepth bounds how deeply a TOML file's arrays and inline tables
// nest (see tomlguard): far beyond any real configuration, far below what
// would exhaust the stack.
const maxTOMLDepth = 1000

// parseFile parses data with koanf's parser for path's format. Errors name the
// file and, where the parser knows it, the line. A file with only white space
// is an empty configuration. A TOML file that would make the parser recurse
// without bound (a key of a million dotted parts) is refused before it is
// parsed: a stack overflow cannot be recovered from, and a project file must
// not be able to end mcphost.
func parseFile(path string, data []byte) (m map[string]any, err error) {
	format, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	if format == "toml" {
		if err := tomlguard.Check(data, maxTOMLDepth); err != nil {
			return nil, parseError(path, format, data, err)
		}
	}
	defer func() {
		// The parsers are not ours; a panic on a hostile file must not take
		// the host down.
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("config: %s: cannot parse %s: %v", path, format, p)
		}
	}()
	m, err = parserFor(format).Unmarshal(data)
	if err != nil {
		return nil, parseError(path, format, data, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	maps.IntfaceKeysToStrings(m)
	return toGeneric(m).(map[string]any), nil
}

func parseError(path, format string, data []byte, err error) error {
	switch format {
	case "json":
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return fmt.Errorf("config: %s:%d:%d: %s", path, line, col, cleanJSONError(err))
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			line, col := lineCol(data, te.Offset)
			return fmt.Errorf("config: %s:%d:%d: the file must hold a JSON object (%s)", path, line, col, cleanJSONError(err))
		}
	case "toml":
		var pe interface{ Position() (int, int) }
		if errors.As(err, &pe) {
			line, col := pe.Position()
			return fmt.Errorf("config: %s:%d:%d: %v", path, line, col, err)
		}
	}
	// yaml.v3 puts "line N" into its own messages.
	return fmt.Errorf("config: %s: %v", path, err)
}

func cleanJSONError(err error) string {
	s := err.Error()
	if !strings.HasPrefix(s, "json: ") {
		s = "json: " + s
	}
	return s
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
