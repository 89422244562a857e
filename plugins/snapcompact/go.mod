module github.com/wasmwright/wasmwright/plugins/snapcompact

go 1.26.8

require (
	github.com/wasmwright/wasmwright v0.0.0
	github.com/wasmwright/wasmwright/internal/bench v0.0.0
)

replace (
	github.com/wasmwright/wasmwright => ../..
	github.com/wasmwright/wasmwright/internal/bench => ../../internal/bench
)
