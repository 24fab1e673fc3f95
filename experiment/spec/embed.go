package spec

import (
	"bytes"
	_ "embed" // for the schema
)

// schema and quickstart are read-only: the functions hand out copies.
var (
	//go:embed schema.json
	schema []byte
	//go:embed quickstart.yaml
	quickstart []byte
)

// JSONSchema returns the JSON Schema (draft 2020-12) of experiment files,
// for editors. It accepts exactly the keys Parse accepts; the checks it
// cannot express (valid database names, valid workloads) are Parse's.
func JSONSchema() []byte { return bytes.Clone(schema) }

// Quickstart returns the built-in quickstart experiment, a copy of
// examples/quickstart.yaml (go:embed cannot reach outside the package's
// directory; a test keeps the two identical). The error is for a future
// source that can fail; today it is always nil.
func Quickstart() ([]byte, error) { return bytes.Clone(quickstart), nil }
