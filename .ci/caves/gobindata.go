package mockdata

// Stand-in for gocaves' generated mock/data/gobindata.go (upstream writes it with go-bindata; the shared
// tree's README says it "uses embed instead"), which ../shared/tools/caves's sources lack: .ci/run copies it
// into its build copy (target/caves-tool) only where the shared tree has no such file. It serves the error
// maps beside it, as the generated file's Asset does.

import "embed"

//go:embed *.json
var files embed.FS

// Asset returns the named file's bytes.
func Asset(name string) ([]byte, error) { return files.ReadFile(name) }
