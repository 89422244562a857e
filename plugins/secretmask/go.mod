module github.com/wasmwright/wasmwright/plugins/secretmask

go 1.26.8

require github.com/wasmwright/wasmwright v0.0.0

require golang.org/x/text v0.43.0 // indirect

replace github.com/wasmwright/wasmwright => ../..
