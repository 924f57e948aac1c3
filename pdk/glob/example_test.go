package glob_test

import (
	"fmt"
	"path"

	"github.com/mcphost/mcphost/pdk/glob"
)

// '*' crosses '/', so a deny glob still catches a server that nests its tool names.
func ExampleMatch() {
	pathOK, _ := path.Match("*delete*", "fs/delete_file")
	fmt.Println(glob.Match("*delete*", "fs/delete_file"), pathOK)

	fmt.Println(glob.Match("db_v[0-9]_query", "db_v2_query"))
	fmt.Println(glob.Match("db_v[0-9]_query", "db_vX_query"))

	fmt.Println(glob.Match(`notes\*`, "notes*"))
	fmt.Println(glob.Match(`notes\*`, "notes_2024"))

	// A pattern that does not compile matches nothing, not everything.
	fmt.Println(glob.Match("read_[a-z", "read_a"))
	// Output:
	// true false
	// true
	// false
	// true
	// false
	// false
}

// Compiling once reports a bad pattern where it is loaded and skips re-parsing per name.
func ExampleCompile() {
	p, err := glob.Compile("gh_*_issue")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"gh_create_issue", "gh_close_issue", "gh_issue", "gh_create_issues"} {
		fmt.Println(name, p.Match(name))
	}

	_, err = glob.Compile("read_[a-z")
	fmt.Println(err)
	// Output:
	// gh_create_issue true
	// gh_close_issue true
	// gh_issue false
	// gh_create_issues false
	// bad glob "read_[a-z": '[' without a closing ']' (write \[ for a bracket)
}

// readTools is compiled when the package loads: a pattern written in the
// source cannot be wrong at run time, so a panic is the right failure.
var readTools = glob.MustCompile("*[:/]read_*")

// The separator class keeps tools that merely contain "read_" out of the set.
func ExampleMustCompile() {
	for _, name := range []string{"fs:read_file", "git/read_blob", "fs:thread_list"} {
		fmt.Println(name, readTools.Match(name))
	}
	// Output:
	// fs:read_file true
	// git/read_blob true
	// fs:thread_list false
}
