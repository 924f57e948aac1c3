// Package importrule holds no code: its test enforces the rule of the
// imports that ARCHITECTURE.md describes. The test lists the module's
// packages with "go list", places each in its layer, and fails on an import
// that its layer does not allow, naming the import and the rule.
//
// The layers, what each may import and the known violations are tables in
// importrule_test.go; change them together with ARCHITECTURE.md.
package importrule
