module example.com/mcptools

go 1.26.8

require github.com/wasmwright/wasmwright v0.0.0

replace github.com/wasmwright/wasmwright => ../../../..
