module github.com/wasmwright/wasmwright/plugins/web_fetch

go 1.26.8

require (
	github.com/wasmwright/wasmwright v0.0.0
	golang.org/x/net v0.62.0
)

replace github.com/wasmwright/wasmwright => ../..
